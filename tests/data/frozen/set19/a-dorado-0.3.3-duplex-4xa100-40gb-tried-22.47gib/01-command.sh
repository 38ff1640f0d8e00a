dorado duplex --guard-gpus --device "cuda:all" dna_r10.4.1_e8.2_400bps_sup@v4.2.0 pod5/ > supdup.bam
