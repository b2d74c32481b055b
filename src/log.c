/* log.c: one-line messages on stderr, filtered by level (-v raises it). */
#include <stdarg.h>
#include <stdio.h>

#include "nwalign.h"

int nw_log_level = NW_LOG_WARN;

static void vlog(int level, const char *tag, const char *fmt, va_list ap)
{
	if (level > nw_log_level)
		return;
	fprintf(stderr, "nwalign: %s", tag);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void nw_log_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(NW_LOG_ERROR, "error: ", fmt, ap);
	va_end(ap);
}

void nw_log_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(NW_LOG_WARN, "warning: ", fmt, ap);
	va_end(ap);
}

void nw_log_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(NW_LOG_INFO, "", fmt, ap);
	va_end(ap);
}

void nw_log_debug(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(NW_LOG_DEBUG, "", fmt, ap);
	va_end(ap);
}
