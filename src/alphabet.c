/* alphabet.c: residue characters <-> codes for the DNA and protein alphabets, and the
 * dna/protein guess used by --alphabet auto.
 *
 * The tables are static const arrays filled by designated initialisers, so there is no
 * run-time initialisation and any thread may call these functions at any time. Each
 * table stores code + 1, so that the zero default of every unlisted entry reads as
 * "not in the alphabet" (-1 after the subtraction).
 */
#include "nwalign.h"

/* Upper and lower case of one letter map to the same code. */
#define NW_PAIR(up, code) [up] = (code) + 1, [(up) + ('a' - 'A')] = (code) + 1

static const int8_t dna_table[256] = {
	NW_PAIR('A', 0),  NW_PAIR('C', 1),  NW_PAIR('G', 2),  NW_PAIR('T', 3),
	NW_PAIR('U', 3),  /* RNA: U is read as T */
	NW_PAIR('N', 4),  NW_PAIR('R', 5),  NW_PAIR('Y', 6),  NW_PAIR('S', 7),
	NW_PAIR('W', 8),  NW_PAIR('K', 9),  NW_PAIR('M', 10), NW_PAIR('B', 11),
	NW_PAIR('D', 12), NW_PAIR('H', 13), NW_PAIR('V', 14),
};

/* NCBI matrix order: A R N D C Q E G H I L K M F P S T W Y V B Z X *. */
static const int8_t protein_table[256] = {
	NW_PAIR('A', 0),  NW_PAIR('R', 1),  NW_PAIR('N', 2),  NW_PAIR('D', 3),
	NW_PAIR('C', 4),  NW_PAIR('Q', 5),  NW_PAIR('E', 6),  NW_PAIR('G', 7),
	NW_PAIR('H', 8),  NW_PAIR('I', 9),  NW_PAIR('L', 10), NW_PAIR('K', 11),
	NW_PAIR('M', 12), NW_PAIR('F', 13), NW_PAIR('P', 14), NW_PAIR('S', 15),
	NW_PAIR('T', 16), NW_PAIR('W', 17), NW_PAIR('Y', 18), NW_PAIR('V', 19),
	NW_PAIR('B', 20), NW_PAIR('Z', 21), NW_PAIR('X', 22),
	['*'] = 23 + 1,
	/* J (I or L), O (pyrrolysine) and U (selenocysteine) have no row in the NCBI
	 * matrices; they score as the unknown residue X. */
	NW_PAIR('J', 22), NW_PAIR('O', 22), NW_PAIR('U', 22),
};

#undef NW_PAIR

int nw_encode_char(nw_alphabet_t a, int c)
{
	if (c < 0 || c > 255)
		return -1;
	if (a == NW_ALPHA_DNA)
		return dna_table[c] - 1;
	if (a == NW_ALPHA_PROTEIN)
		return protein_table[c] - 1;
	return -1;
}

uint8_t nw_dna_complement(uint8_t code)
{
	/* A C G T N R Y S W K M B D H V */
	static const uint8_t comp[NW_DNA_CODES] = {3, 2, 1, 0, 4, 6, 5, 7, 8, 10, 9, 14, 13, 12, 11};
	return code < NW_DNA_CODES ? comp[code] : code;
}

char nw_decode_code(nw_alphabet_t a, int code)
{
	if (a == NW_ALPHA_DNA && code >= 0 && code < NW_DNA_CODES)
		return NW_DNA_ALPHABET[code];
	if (a == NW_ALPHA_PROTEIN && code >= 0 && code < NW_PROTEIN_CODES)
		return NW_PROTEIN_ALPHABET[code];
	return '?';
}

const char *nw_alphabet_name(nw_alphabet_t a)
{
	switch (a) {
	case NW_ALPHA_DNA:
		return "dna";
	case NW_ALPHA_PROTEIN:
		return "protein";
	default:
		return "auto";
	}
}

nw_alphabet_t nw_alphabet_guess(const uint64_t counts[256])
{
	uint64_t total = 0, common = 0;
	int c;

	for (c = 0; c < 256; c++) {
		uint64_t n = counts[c];
		int up = c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c;

		/* Whitespace never reaches the histogram from the reader; ignore it in case a
		 * caller builds the histogram from raw lines. The gap characters of aligned
		 * FASTA ('-', '.') belong to neither alphabet: the encoder reports them, in the
		 * alphabet of the letters around them. */
		if (n == 0 || c == ' ' || (c >= '\t' && c <= '\r') || c == '-' || c == '.')
			continue;
		/* Any letter outside the nucleotide codes (E, F, I, L, P, Q, ...), '*' or
		 * anything else means protein (or invalid input that the encoder reports). */
		if (dna_table[up] == 0)
			return NW_ALPHA_PROTEIN;
		total += n;
		if (up == 'A' || up == 'C' || up == 'G' || up == 'T' || up == 'U' || up == 'N')
			common += n;
	}
	/* Proteins made only of the letters A C G T N D ... are possible but rare; demanding
	 * that three quarters be A/C/G/T/U/N keeps such short peptides protein. */
	if (total == 0 || common * 4 >= total * 3)
		return NW_ALPHA_DNA;
	return NW_ALPHA_PROTEIN;
}
