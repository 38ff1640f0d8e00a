#!/bin/bash
. ~/.bashrc
conda activate remora
line="$1"
/home/user/ydliu/software/dorado-0.3.1-linux-x64/bin/dorado basecaller /home/user/ydliu/software/dorado-0.3.1-linux-x64/model/dna_r9.4.1_e8_hac@v3.3/  "$line"/pod5/ --emit-moves -x cuda:0,1,2,3,4,5,6,7 >  "$line"/calls.bam 
