namespace gridftp::security {}
