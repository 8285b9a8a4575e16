namespace gridftp::transport {}
