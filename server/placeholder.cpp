namespace gridftp::server {}
