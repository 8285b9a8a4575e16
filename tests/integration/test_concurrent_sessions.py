"""200 concurrent control sessions against gridftpd: all log in and stay logged in together,
then each does a small get; every byte must be right and the server must survive."""

import ftplib
import os
import threading
import traceback

from gridftp_harness import (ftp_retr_bytes, make_tree_readable, run_tests, start_gridftpd,
                             wait_until)

SESSIONS = 200
FILES = 20
HANG_DEADLINE_S = 120   # only catches hangs


def test_200_concurrent_sessions_each_get_a_file():
    server = start_gridftpd(limits={"max_sessions": 1000, "max_sessions_per_user": 1000,
                                    "max_sessions_per_address": 1000})
    contents = {}
    for i in range(FILES):
        data = os.urandom(1000 + i * 997)
        with open(server.fs(f"file{i:02d}.bin"), "wb") as f:
            f.write(data)
        contents[i] = data
    make_tree_readable(server.fs(""))
    logged_in = threading.Barrier(SESSIONS)
    done = threading.Barrier(SESSIONS)
    errors: list[str] = []
    ok = [0]
    lock = threading.Lock()

    def session(n: int) -> None:
        ftp = ftplib.FTP()
        try:
            ftp.connect(server.host, server.port, timeout=HANG_DEADLINE_S)
            ftp.login("anonymous", f"session{n}@example.org")
            logged_in.wait(HANG_DEADLINE_S)   # all 200 are logged in at the same time
            index = n % FILES
            got = ftp_retr_bytes(ftp, server.path(f"file{index:02d}.bin"))
            if got != contents[index]:
                raise AssertionError(f"session {n}: file{index:02d}.bin came back with "
                                     f"{len(got)} bytes, expected {len(contents[index])}, "
                                     f"equal={got == contents[index]}")
            done.wait(HANG_DEADLINE_S)        # and still connected while the others finish
            ftp.voidcmd("NOOP")
            ftp.quit()
            with lock:
                ok[0] += 1
        except threading.BrokenBarrierError:
            with lock:
                errors.append(f"session {n}: barrier broken (another session failed)")
        except Exception as e:  # noqa: BLE001 - collected and reported below
            with lock:
                errors.append(f"session {n}: {type(e).__name__}: {e}\n"
                              + traceback.format_exc(limit=3))
            logged_in.abort()
            done.abort()
        finally:
            try:
                ftp.close()
            except OSError:
                pass

    threads = [threading.Thread(target=session, args=(n,), daemon=True)
               for n in range(SESSIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(HANG_DEADLINE_S * 3)
    hung = sum(t.is_alive() for t in threads)
    real_errors = [e for e in errors if "barrier broken" not in e]
    assert hung == 0, f"{hung} session threads hung; errors: {real_errors[:5]}"
    assert ok[0] == SESSIONS, (f"{ok[0]}/{SESSIONS} sessions succeeded; first errors:\n"
                               + "\n".join((real_errors or errors)[:5]))
    server.assert_alive("after 200 concurrent sessions")
    with server.ftp() as ftp:
        assert ftp_retr_bytes(ftp, "file00.bin") == contents[0], "a get after the 200 sessions"
        ftp.quit()
    # Every get is in the transfer log with its true byte count.
    def retr_records():
        return [r for r in server.transfer_records() if r.get("command") == "RETR"]
    try:
        wait_until(lambda: len(retr_records()) >= SESSIONS + 1, 30, "201 RETR log records")
    except AssertionError:
        raise AssertionError(f"transfer log has {len(retr_records())} RETR records, expected "
                             f"{SESSIONS + 1}") from None
    records = retr_records()
    bad = [r for r in records if r.get("result") != "ok" or
           r.get("bytes") != len(contents[int(str(r.get("path"))[-6:-4])])]
    assert not bad, f"transfer records with wrong result or byte count: {bad[:3]}"


if __name__ == "__main__":
    run_tests(globals())
