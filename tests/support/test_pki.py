"""A throwaway PKI for the GSI tests (Python standard library + the `openssl` CLI +
`grid-proxy-init`; docs/PEERS.md "The throwaway PKI").

make_test_pki(base_dir) builds, under base_dir:
  certificates/          X509_CERT_DIR layout: <hash>.0 (the CA), <hash>.signing_policy,
                         <hash>.r0 (a CRL revoking the "revoked" user)
  ca/                    the trusted CA's key and its `openssl ca` database (for the CRL)
  host/                  CN=localhost, SAN DNS:localhost + IP:127.0.0.1 (key unencrypted, 0600)
  hosts/<name>/          CN=<name>, no SAN, for NAMED_HOSTS (the WAN emulator's two ends)
  users/<name>/          user cert, key (0600) and an RFC 3820 proxy from grid-proxy-init
  untrusted/             a second CA that is NOT in certificates/, with its own user + proxy
  gridmap                test -> account, other -> other_account; revoked and untrusted are
                         mapped too (so their rejection proves the trust check, not the
                         gridmap); unmapped is deliberately absent.

Users (client_env(user)):
  "test"      /O=Grid/OU=Test/CN=Test User       -> account (default gftest)
  "other"     /O=Grid/OU=Test/CN=Other User      -> other_account (default gftest2)
  "revoked"   /O=Grid/OU=Test/CN=Revoked User    -> account, but its cert is in the CRL
  "unmapped"  /O=Grid/OU=Test/CN=Unmapped User   -> trusted CA, no gridmap line
  "untrusted" /O=Grid/OU=Test/CN=Untrusted User  -> account, issued by a CA outside certificates/
  "expired"   Test User's own key, an RFC 3820 proxy whose validity ended a day ago (made with
              `openssl ca -startdate/-enddate`: this openssl 3.0 has no x509 -not_before)

One PKI per base dir per process (a module-level cache): key generation is the slow part.
"""

from __future__ import annotations

import datetime
import os
import pwd
import shutil
import subprocess
import threading

CA_DN = "/O=Grid/OU=Test/CN=Test CA"
UNTRUSTED_CA_DN = "/O=Grid/OU=Untrusted/CN=Untrusted CA"
HOST_DN = "/O=Grid/OU=Test/CN=localhost"
USER_DNS = {
    "test": "/O=Grid/OU=Test/CN=Test User",
    "other": "/O=Grid/OU=Test/CN=Other User",
    "revoked": "/O=Grid/OU=Test/CN=Revoked User",
    "unmapped": "/O=Grid/OU=Test/CN=Unmapped User",
    "untrusted": "/O=Grid/OU=Test/CN=Untrusted User",
}
# Extra host credentials (CN only): the WAN emulator's two ends (tests/support/wanem.py).
NAMED_HOSTS = ("wanem-a", "wanem-b")
USER_NAMES = ("test", "other", "revoked", "unmapped", "untrusted", "expired")

_CA_EXT = """[ca_ext]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
"""
_HOST_EXT = """[host_ext]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
"""
# Hosts named by their CN alone (no SAN), for servers reached by another name than localhost
# (the WAN emulator's ends).
_NAMED_HOST_EXT = """[named_host_ext]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth, clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
"""
# No extendedKeyUsage on user certs: their proxies serve as TLS client (control channel) and,
# once delegated, as TLS client or server on DCAU data channels.
_USER_EXT = """[user_ext]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, keyEncipherment, dataEncipherment
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
"""
# What grid-proxy-init -rfc puts in a proxy (checked with openssl x509 -text): keyUsage
# critical (copied from the user cert) and a critical inheritAll proxyCertInfo, no key ids.
_PROXY_EXT = """[proxy_ext]
keyUsage = critical, digitalSignature, keyEncipherment, dataEncipherment
proxyCertInfo = critical, language:id-ppl-inheritAll
subjectKeyIdentifier = none
authorityKeyIdentifier = none
"""

_OPENSSL_CA_CONF = """[ca]
default_ca = ca_default

[ca_default]
dir = {dir}
database = $dir/index.txt
new_certs_dir = $dir/newcerts
certificate = {cert}
private_key = {key}
serial = $dir/serial
crlnumber = $dir/crlnumber
default_md = sha256
default_days = 30
default_crl_days = 3650
unique_subject = no
copy_extensions = none
policy = policy_any
preserve = yes

[policy_any]
commonName = optional

{extensions}
"""


class PkiError(AssertionError):
    pass


def _run(argv: list[str], env: dict | None = None, what: str = "") -> str:
    full_env = dict(os.environ)
    # Stray credentials in the caller's environment must not leak into grid-proxy-init.
    for name in ("X509_USER_PROXY", "X509_USER_CERT", "X509_USER_KEY", "X509_CERT_DIR"):
        full_env.pop(name, None)
    if env:
        full_env.update(env)
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, env=full_env)
    out = proc.stdout.decode(errors="replace")
    if proc.returncode != 0:
        raise PkiError(f"test PKI: {what or argv[0]} failed (exit {proc.returncode})\n"
                       f"command: {' '.join(argv)}\n{out}")
    return out


def _openssl(*args: str, what: str = "") -> str:
    return _run(["openssl", *args], what=what or f"openssl {args[0]}")


def _write(path: str, text: str, mode: int = 0o644) -> str:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)
    return path


def _genkey(path: str) -> str:
    _openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path,
             what="RSA key generation")
    os.chmod(path, 0o600)
    return path


def ensure_account(name: str) -> pwd.struct_passwd:
    """Like the harness's ensure_globus_user: useradd -m when the account is missing."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "-m", name], check=False, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
        return pwd.getpwnam(name)


class _Ca:
    """An `openssl ca` directory; its own cert/key sign user certs, revocations and CRLs."""

    def __init__(self, directory: str, dn: str, extensions: str = ""):
        self.dir, self.dn = directory, dn
        os.makedirs(os.path.join(directory, "newcerts"), exist_ok=True)
        self.key = _genkey(os.path.join(directory, "ca.key"))
        self.cert = os.path.join(directory, "ca.pem")
        self.ext_file = _write(os.path.join(directory, "ext.cnf"),
                               _CA_EXT + _HOST_EXT + _NAMED_HOST_EXT + _USER_EXT + _PROXY_EXT)
        _openssl("req", "-x509", "-new", "-key", self.key, "-sha256", "-days", "3650",
                 "-subj", dn, "-config", self.ext_file, "-extensions", "ca_ext",
                 "-set_serial", "1", "-out", self.cert, what=f"CA certificate {dn}")
        self.conf = self._conf(directory, self.cert, self.key)
        self.next_serial = 0x1000

    @staticmethod
    def _conf(directory: str, cert: str, key: str) -> str:
        _write(os.path.join(directory, "index.txt"), "")
        _write(os.path.join(directory, "serial"), "1000\n")
        _write(os.path.join(directory, "crlnumber"), "01\n")
        return _write(os.path.join(directory, "openssl-ca.cnf"),
                      _OPENSSL_CA_CONF.format(dir=directory, cert=cert, key=key,
                                              extensions=_PROXY_EXT))

    def subject_hash(self) -> str:
        return _openssl("x509", "-in", self.cert, "-noout", "-subject_hash").strip()

    def issue(self, directory: str, dn: str, ext: str) -> tuple[str, str]:
        """Key + certificate signed by this CA; returns (cert, key)."""
        os.makedirs(directory, exist_ok=True)
        key = _genkey(os.path.join(directory, "key.pem"))
        csr = os.path.join(directory, "req.csr")
        cert = os.path.join(directory, "cert.pem")
        _openssl("req", "-new", "-key", key, "-subj", dn, "-out", csr, what=f"CSR {dn}")
        self.next_serial += 1
        _openssl("x509", "-req", "-in", csr, "-CA", self.cert, "-CAkey", self.key,
                 "-set_serial", str(self.next_serial), "-days", "365", "-sha256",
                 "-extfile", self.ext_file, "-extensions", ext, "-out", cert,
                 what=f"certificate {dn}")
        os.chmod(cert, 0o644)
        return cert, key

    def revoke(self, cert: str) -> None:
        _openssl("ca", "-batch", "-config", self.conf, "-revoke", cert,
                 "-crl_reason", "keyCompromise", what="revocation")

    def gen_crl(self, out: str) -> str:
        _openssl("ca", "-batch", "-config", self.conf, "-gencrl", "-out", out, what="CRL")
        os.chmod(out, 0o644)
        return out


class UserCred:
    def __init__(self, name: str, dn: str, cert: str, key: str, proxy: str,
                 account: str | None):
        self.name, self.dn, self.cert, self.key, self.proxy = name, dn, cert, key, proxy
        self.account = account   # gridmap account, None when unmapped

    def __repr__(self) -> str:
        return f"UserCred({self.name!r}, {self.dn!r}, account={self.account!r})"


class TestPki:
    """Paths and environments of one throwaway PKI (see the module docstring)."""

    __test__ = False   # not a test class, whatever a collector thinks of the name

    def __init__(self, base_dir: str, account: str, other_account: str):
        self.base_dir = base_dir
        self.account, self.other_account = account, other_account
        self.cert_dir = os.path.join(base_dir, "certificates")
        self.ca_cert = self.ca_key = self.ca_hash = self.crl = ""
        self.host_cert = self.host_key = ""
        self.named_hosts: dict[str, tuple[str, str]] = {}  # name -> (cert, key), CN=name
        self.untrusted_ca_cert = self.untrusted_cert_dir = ""
        self.gridmap = os.path.join(base_dir, "gridmap")
        self.users: dict[str, UserCred] = {}

    # Environments -----------------------------------------------------------------------
    def server_env(self) -> dict[str, str]:
        return {"X509_CERT_DIR": self.cert_dir, "X509_USER_CERT": self.host_cert,
                "X509_USER_KEY": self.host_key, "GRIDMAP": self.gridmap}

    def client_env(self, user: str = "test") -> dict[str, str]:
        """X509_CERT_DIR is always the trusted one (the client must still trust the server)."""
        return {"X509_CERT_DIR": self.cert_dir, "X509_USER_PROXY": self.user(user).proxy}

    # Look-ups ---------------------------------------------------------------------------
    def user(self, name: str) -> UserCred:
        if name not in self.users:
            raise KeyError(f"no test PKI user {name!r} (have {sorted(self.users)})")
        return self.users[name]

    def dn(self, name: str) -> str:
        return self.user(name).dn

    def proxy(self, name: str) -> str:
        return self.user(name).proxy

    def mapped_account(self, name: str) -> str | None:
        return self.user(name).account

    def __repr__(self) -> str:
        return f"TestPki({self.base_dir!r})"


def _grid_proxy_init(cert: str, key: str, out: str, cert_dir: str) -> str:
    _run(["grid-proxy-init", "-q", "-rfc", "-bits", "2048", "-cert", cert, "-key", key,
          "-certdir", cert_dir, "-out", out],
         env={"X509_CERT_DIR": cert_dir, "X509_USER_CERT": cert, "X509_USER_KEY": key},
         what=f"grid-proxy-init for {cert}")
    os.chmod(out, 0o600)
    return out


def _expired_proxy(user: UserCred, directory: str) -> str:
    """An RFC 3820 proxy of `user` (signed with the user's own key) valid from two days ago
    until one day ago; the file has the layout grid-proxy-init writes (proxy cert, proxy key,
    then the user's cert)."""
    os.makedirs(directory, exist_ok=True)
    signer = os.path.join(directory, "signer")
    os.makedirs(os.path.join(signer, "newcerts"), exist_ok=True)
    conf = _Ca._conf(signer, user.cert, user.key)
    key = _genkey(os.path.join(directory, "proxy-key.pem"))
    serial = int.from_bytes(os.urandom(4), "big") & 0x7FFFFFFF
    dn = f"{user.dn}/CN={serial}"
    csr = os.path.join(directory, "proxy.csr")
    _openssl("req", "-new", "-key", key, "-subj", dn, "-out", csr, what="expired proxy CSR")
    _write(os.path.join(signer, "serial"), f"{serial:08X}\n")
    now = datetime.datetime.now(datetime.timezone.utc)
    fmt = "%Y%m%d%H%M%SZ"
    cert = os.path.join(directory, "proxy-cert.pem")
    _openssl("ca", "-batch", "-config", conf, "-in", csr, "-out", cert, "-notext",
             "-preserveDN", "-subj", dn, "-extensions", "proxy_ext",
             "-startdate", (now - datetime.timedelta(days=2)).strftime(fmt),
             "-enddate", (now - datetime.timedelta(days=1)).strftime(fmt),
             what="expired proxy signing (openssl ca -startdate/-enddate)")
    proxy = os.path.join(directory, "proxy.pem")
    with open(proxy, "w", encoding="utf-8") as f:
        for part in (cert, key, user.cert):
            with open(part, encoding="utf-8") as src:
                f.write(src.read())
    os.chmod(proxy, 0o600)
    return proxy


def _gridmap_line(dn: str, account: str) -> str:
    escaped = dn.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}" {account}\n'


def _build(base_dir: str, account: str, other_account: str) -> TestPki:
    for tool in ("openssl", "grid-proxy-init"):
        if not shutil.which(tool):
            raise PkiError(f"required tool {tool!r} is not installed (see docs/PEERS.md); "
                           "this is a failure, not a skip")
    ensure_account(account)
    ensure_account(other_account)
    os.makedirs(base_dir, exist_ok=True)
    os.chmod(base_dir, 0o755)   # servers that setuid to the mapped account read certificates/
    pki = TestPki(base_dir, account, other_account)
    os.makedirs(pki.cert_dir, exist_ok=True)
    os.chmod(pki.cert_dir, 0o755)

    # Trusted CA, in X509_CERT_DIR layout.
    ca = _Ca(os.path.join(base_dir, "ca"), CA_DN)
    pki.ca_cert, pki.ca_key, pki.ca_hash = ca.cert, ca.key, ca.subject_hash()
    shutil.copyfile(ca.cert, os.path.join(pki.cert_dir, f"{pki.ca_hash}.0"))
    _write(os.path.join(pki.cert_dir, f"{pki.ca_hash}.signing_policy"),
           f"access_id_CA X509 '{CA_DN}'\npos_rights globus CA:sign\n"
           "cond_subjects globus '\"*\"'\n")
    os.chmod(os.path.join(pki.cert_dir, f"{pki.ca_hash}.0"), 0o644)

    pki.host_cert, pki.host_key = ca.issue(os.path.join(base_dir, "host"), HOST_DN, "host_ext")
    for name in NAMED_HOSTS:
        pki.named_hosts[name] = ca.issue(os.path.join(base_dir, "hosts", name),
                                         f"/O=Grid/OU=Test/CN={name}", "named_host_ext")

    accounts = {"test": account, "other": other_account, "revoked": account,
                "unmapped": None, "untrusted": account}
    for name in ("test", "other", "revoked", "unmapped"):
        directory = os.path.join(base_dir, "users", name)
        cert, key = ca.issue(directory, USER_DNS[name], "user_ext")
        proxy = _grid_proxy_init(cert, key, os.path.join(directory, "proxy.pem"), pki.cert_dir)
        pki.users[name] = UserCred(name, USER_DNS[name], cert, key, proxy, accounts[name])

    # Untrusted CA: its own cert dir (for grid-proxy-init), never in certificates/.
    untrusted = _Ca(os.path.join(base_dir, "untrusted", "ca"), UNTRUSTED_CA_DN)
    pki.untrusted_ca_cert = untrusted.cert
    pki.untrusted_cert_dir = os.path.join(base_dir, "untrusted", "certificates")
    os.makedirs(pki.untrusted_cert_dir, exist_ok=True)
    shutil.copyfile(untrusted.cert,
                    os.path.join(pki.untrusted_cert_dir, f"{untrusted.subject_hash()}.0"))
    directory = os.path.join(base_dir, "untrusted", "user")
    cert, key = untrusted.issue(directory, USER_DNS["untrusted"], "user_ext")
    proxy = _grid_proxy_init(cert, key, os.path.join(directory, "proxy.pem"),
                             pki.untrusted_cert_dir)
    pki.users["untrusted"] = UserCred("untrusted", USER_DNS["untrusted"], cert, key, proxy,
                                      account)

    test = pki.users["test"]
    pki.users["expired"] = UserCred("expired", test.dn, test.cert, test.key,
                                    _expired_proxy(test, os.path.join(base_dir, "users",
                                                                      "expired")), account)

    # The CRL comes last: the revoked user's proxy was made while its cert was still good.
    ca.revoke(pki.users["revoked"].cert)
    pki.crl = ca.gen_crl(os.path.join(pki.cert_dir, f"{pki.ca_hash}.r0"))

    with open(pki.gridmap, "w", encoding="utf-8") as f:
        f.write("# test PKI gridmap (tests/support/test_pki.py); Unmapped User is absent\n")
        for name in ("test", "other", "revoked", "untrusted"):
            f.write(_gridmap_line(USER_DNS[name], accounts[name]))
    os.chmod(pki.gridmap, 0o644)
    return pki


_cache: dict[tuple[str, str, str], TestPki] = {}
_lock = threading.Lock()


def make_test_pki(base_dir: str, account: str = "gftest",
                  other_account: str = "gftest2") -> TestPki:
    """Builds (once per process and base dir) the throwaway PKI described above."""
    key = (os.path.abspath(base_dir), account, other_account)
    with _lock:
        if key not in _cache:
            _cache[key] = _build(key[0], account, other_account)
        return _cache[key]


if __name__ == "__main__":
    import sys
    import tempfile
    where = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="test-pki-")
    pki = make_test_pki(where)
    print(pki.base_dir)
    for n in USER_NAMES:
        print(f"{n:10} {pki.dn(n):40} account={pki.mapped_account(n)} proxy={pki.proxy(n)}")
    print("server_env:", pki.server_env())


def sign_delegation_request(request_der: bytes, proxy: str) -> bytes:
    """What a delegating GSI initiator does with the acceptor's certificate request: signs it
    with the proxy's key into a proxy certificate whose subject is the proxy's own subject plus
    CN=<serial> (docs/WIRE.md §5.4), with the extensions grid-proxy-init -rfc uses. Returns DER."""
    import random
    import tempfile
    with tempfile.TemporaryDirectory(prefix="gsi-delegation-") as work:
        request = os.path.join(work, "request.der")
        with open(request, "wb") as f:
            f.write(request_der)
        issuer = _openssl("x509", "-in", proxy, "-noout", "-subject", "-nameopt", "compat",
                          what="proxy subject").strip()
        issuer = issuer.split("=", 1)[1].strip() if issuer.startswith("subject") else issuer
        serial = random.randint(1, 2**31 - 1)
        ext = _write(os.path.join(work, "ext.cnf"), _PROXY_EXT)
        out = os.path.join(work, "cert.der")
        _openssl("x509", "-req", "-inform", "DER", "-in", request, "-CA", proxy, "-CAkey", proxy,
                 "-set_serial", str(serial), "-days", "1", "-subj", f"{issuer}/CN={serial}",
                 "-extfile", ext, "-extensions", "proxy_ext", "-sha256", "-outform", "DER",
                 "-out", out, what="sign the delegation request")
        with open(out, "rb") as f:
            return f.read()
