/* cli_main.c: src/main.c with its main renamed nw_cli_main, for fuzz_options.c. */
#define main nw_cli_main
#include "main.c"
