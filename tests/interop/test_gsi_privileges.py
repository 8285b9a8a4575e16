"""A GSI session as root ends up as the gridmap's account and nothing more: the session process
of a logged-in user has that account's uids, gids and groups, no capabilities and no_new_privs
(read from /proc/PID/status while the session is live), and cannot read what the account cannot."""

import os
import pwd

from gridftp_harness import (GsiControl, assert_runs_as_account, run_tests, session_processes,
                             shared_test_pki, start_gridftpd)


def test_a_gsi_session_process_is_the_mapped_account_only():
    pki = shared_test_pki()
    server = start_gridftpd(gsi=pki)
    ctl = GsiControl(server.host, server.port)
    try:
        ctl.gsi_login(pki.proxy("test"), pki.ca_cert)
        ctl.enc_expect("PWD", 257)
        sessions = session_processes(server)
        assert len(sessions) == 1, f"session processes: {sessions}"
        account = pwd.getpwnam(pki.user("test").account)
        assert_runs_as_account(sessions[0], account, "GSI session process")
        # A root-only file inside the user's root stays unreadable: the kernel checks as the
        # account, and the session holds nothing that would override it.
        secret = server.fs("root-only.txt")
        with open(secret, "w") as f:
            f.write("not for the session\n")
        os.chmod(secret, 0o600)
        ctl.enc_expect("TYPE I", 200)
        ctl.enc_expect(f"SIZE {server.path('incoming')}", 213, 550)  # the path form works
        code, text = ctl.enc_cmd(f"MLST {server.path('root-only.txt')}")
        assert code == 250, f"MLST of the root-only file: {text}"
        code, text = ctl.enc_cmd("PASV")
        assert code == 227, text
        code, text = ctl.enc_cmd(f"RETR {server.path('root-only.txt')}")
        assert code in (450, 550), f"RETR of a root-only file as the mapped account: {text}"
    finally:
        ctl.close()


if __name__ == "__main__":
    run_tests(globals())
