"""gridbench: security-vs-throughput studies of gridftpd and globus-gridftp-server.

A study is a TOML file (bench/studies/) that sweeps data-channel security levels, streams,
concurrency, server threads, transport, WAN path, dataset, server and client, and for striped
puts the number of movers, their CPU limit and the puts run at once. `gridbench run`
measures every combination with repetitions interleaved; `gridbench report DIR` renders the
recorded runs again. One module per job:

    study       the study file: parsing and validation (errors name the key)
    plan        expansion of the sweep into runs, in interleaved order
    runner      the loop over the runs: progress, failed runs, Ctrl-C
    transfers   servers and clients: one run, measured
    striping    striped puts: frontends with N movers (gridftpd's, a Globus cluster's), on the
                striping bed or loopback, movers in cgroup CPU limits, puts at once
    proc_cpu    CPU seconds of process trees from /proc, perf cycles
    translog    what the servers' transfer logs say about a run
    ceilings    iperf3, openssl speed and the cipher each TLS suite uses
    tlsprobe    the cipher Globus's data channels negotiate, from the ServerHello on the wire
    records     the recorded runs and study metadata (JSON Lines, CSV, JSON)
    aggregate   medians, min-max, ratio columns, the CPU-cost bound
    report      the Markdown summary
    plots       PNG and SVG figures (matplotlib)
    cli         `gridbench run` and `gridbench report`
"""
