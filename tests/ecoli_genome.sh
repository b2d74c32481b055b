# ecoli_genome.sh, sourced by the tests that simulate reads (simreads.sh, sv_paths.sh):
# sets genome to ecoli_dh10b.fa.gz, looked for in $NW_DATA (the data folder, or its dna/
# subfolder) and in $top/../shared/data/dna ($top: the source tree), or skips the test
# (exit 77) when it is in none of them.
genome=
for d in ${NW_DATA:+"$NW_DATA/dna" "$NW_DATA"} "$top/../shared/data/dna"; do
	if [ -r "$d/ecoli_dh10b.fa.gz" ]; then
		genome=$d/ecoli_dh10b.fa.gz
		break
	fi
done
if [ -z "$genome" ]; then
	echo "SKIP: ecoli_dh10b.fa.gz not found (set NW_DATA to the shared data folder)"
	exit 77
fi
