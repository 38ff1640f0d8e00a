    $ cat cgroup-oom.sh
    #!/bin/bash
    readonly pid=$$
    readonly CGROUP_NAME=oom-test

    cleanup() {
    	printf "\n"
    	sudo rmdir /sys/fs/cgroup/${CGROUP_NAME}/
    }
    trap cleanup EXIT

    sudo mkdir -p /sys/fs/cgroup/${CGROUP_NAME}/
    echo ${pid} | sudo tee /sys/fs/cgroup/${CGROUP_NAME}/cgroup.procs
    echo $((1024*1024*2)) | sudo tee /sys/fs/cgroup/${CGROUP_NAME}/memory.max
    echo $((1024*1024*2)) | sudo tee /sys/fs/cgroup/${CGROUP_NAME}/memory.high

    eval ./oom_minimal ${@}
