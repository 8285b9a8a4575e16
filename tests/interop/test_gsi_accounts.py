"""A root-run server maps two DNs to two local accounts (issue 4 acceptance 4).

Test User -> gftest and Other User -> gftest2 through the gridmap. Each GSI session runs in its
own process that becomes the mapped account after login, so:
  * files each user uploads are owned by that user's uid and gid;
  * a 0600 file of one account cannot be read by the other (the kernel says no: 550, nothing
    delivered), while its owner can.
Runs against globus-gridftp-server too (GRIDFTP_TEST_SERVER=globus), which behaves the same.
The suite runs as root; the accounts are made by tests/support/test_pki.py.
"""

import os
import pwd

from gridftp_harness import (GridftpdServer, file_url, give_to_globus_user, make_file,
                             make_temp_dir, run_peer, run_tests, sha256_file, shared_test_pki,
                             start_server_under_test)

GUC = "globus-url-copy"


def guc(pki, user: str, args: list[str], what: str, expect_rc: int | None = 0):
    return run_peer([GUC] + args, env=pki.client_env(user), timeout=180, what=what,
                    expect_rc=expect_rc)


def start_root_server(pki):
    assert os.geteuid() == 0, "the accounts test needs to run as root (as the suite does)"
    server = start_server_under_test(gsi=pki)
    os.makedirs(server.fs("incoming/other"), exist_ok=True)
    give_to_globus_user(server.fs("incoming/other"), pki.other_account)
    return server


def test_uploads_belong_to_the_mapped_account():
    pki = shared_test_pki()
    server = start_root_server(pki)
    src = os.path.join(make_temp_dir("gsi-owner-"), "owned.bin")
    digest = make_file(src, 100_000, seed=31)
    for user, target in (("test", "incoming/owned-test.bin"), ("other", "incoming/other/owned-other.bin")):
        account = pki.mapped_account(user)
        result = guc(pki, user, ["-p", "4", file_url(src), server.gsiftp_url(target)], f"gsiftp put as {user}")
        assert sha256_file(server.fs(target)) == digest, f"put as {user} differs\n{result.describe()}"
        st = os.stat(server.fs(target))
        want = pwd.getpwnam(account)
        assert (st.st_uid, st.st_gid) == (want.pw_uid, want.pw_gid), (
            f"a file uploaded by {pki.dn(user)} (gridmap -> {account}) is owned by "
            f"{st.st_uid}:{st.st_gid}, expected {want.pw_uid}:{want.pw_gid}")
    if isinstance(server, GridftpdServer):
        server.assert_alive("after uploads as two mapped accounts")


def test_private_files_are_private_to_their_account():
    pki = shared_test_pki()
    server = start_root_server(pki)
    other = pwd.getpwnam(pki.other_account)
    secret = server.fs("incoming/other/secret.bin")
    digest = make_file(secret, 50_000, seed=32)
    os.chown(secret, other.pw_uid, other.pw_gid)
    os.chmod(secret, 0o600)
    out = make_temp_dir("gsi-private-")
    denied = guc(pki, "test", [server.gsiftp_url("incoming/other/secret.bin"), file_url(os.path.join(out, "stolen.bin"))],
                 "get of another account's 0600 file", expect_rc=None)
    assert denied.rc != 0, f"Test User (gftest) read Other User's 0600 file\n{denied.describe()}"
    stolen = os.path.join(out, "stolen.bin")
    assert not os.path.exists(stolen) or os.path.getsize(stolen) == 0, "bytes of the private file were delivered"
    allowed = guc(pki, "other", [server.gsiftp_url("incoming/other/secret.bin"), file_url(os.path.join(out, "own.bin"))],
                  "owner's get of its 0600 file")
    assert sha256_file(os.path.join(out, "own.bin")) == digest, f"owner's copy differs\n{allowed.describe()}"


if __name__ == "__main__":
    run_tests(globals())
