"""Mutual TLS on the local cluster's REST API (`flink-up --shared`): the key material, Flink's options, the client.

Loopback keeps other machines out, not other users of this one, and Flink's REST API runs any job it is given (a
jar, or SQL through a gateway) with the rights of the user who started the cluster. With `--shared` the REST
endpoint speaks TLS and asks every client for a certificate (Flink's `security.ssl.rest.*`): the one self-signed
certificate in `state_dir/tls/` (mode 0700, files 0600), so that only processes of the lab's user, who can read
that directory, get in. As Flink's docs do it for REST mutual authentication with a self-signed certificate, one
PKCS12 store made by `keytool` is both the keystore and the truststore; Python's ssl needs PEM, so the certificate
and key are also written as PEM (read from the PKCS12 with `cryptography`, no `openssl` needed on the host).

The material is made once per state dir and reused by later starts (making it runs a JVM: seconds on a loaded
machine); it is made again when a file is missing or the certificate is about to expire. A directory or file that
others could read or change is refused, never repaired: a key that was open to others is no secret.

What only making the material needs (secrets, subprocess, shutil, cryptography) is imported where it is used:
every `sql-client.sh` call asks for the cluster's REST client here (cluster_rest), and needs none of it. (ssl and
datetime stay: http.client and email, which every call needs, import them anyway.)
"""

from __future__ import annotations

import contextlib
import datetime
import os
import ssl
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from flinklab.errors import ClusterError
from flinklab.flink.rest import FlinkRest

TLS_DIR = "tls"
KEYSTORE = "rest.p12"
PASSWORD = "rest.password"
CERT = "rest-cert.pem"
KEY = "rest-key.pem"
FILES = (KEYSTORE, PASSWORD, CERT, KEY)
ALIAS = "flinklab-rest"
VALIDITY_DAYS = 3650
#: A certificate that expires sooner than this is made again at the next fresh start
RENEW_DAYS = 7
KEYTOOL_SECONDS = 120
#: Where the gateway serves a cluster's Web UI (flinklab.gateway.webui): a `--shared` one's port wants a certificate
WEB_UI_PATH = "/cluster"


class TlsError(ClusterError):
    """The REST API's TLS material is missing, unsafe, or could not be made (one line naming the culprit)."""


def tls_dir(state_dir: Path) -> Path:
    return state_dir / TLS_DIR


def _again(directory: Path) -> str:
    return f"Stop the cluster (`flink-down`), remove {directory}, and `flink-up --shared` makes new material."


@dataclass(frozen=True)
class RestTls:
    """The TLS material in one directory: Flink's options for it, and Python's client context."""

    directory: Path
    password: str

    @property
    def keystore(self) -> Path:
        return self.directory / KEYSTORE

    @property
    def cert(self) -> Path:
        return self.directory / CERT

    @property
    def key(self) -> Path:
        return self.directory / KEY

    def flink_options(self) -> dict[str, str]:
        """`security.ssl.rest.*` for the cluster (server: TLS, and a client certificate required) and for a Flink
        client of it (the gateway's sessions: the same store is its certificate and its trust)."""
        store, password = str(self.keystore), self.password
        return {
            "security.ssl.rest.enabled": "true",
            "security.ssl.rest.authentication-enabled": "true",
            "security.ssl.rest.keystore": store,
            "security.ssl.rest.keystore-password": password,
            "security.ssl.rest.key-password": password,
            "security.ssl.rest.keystore-type": "PKCS12",
            "security.ssl.rest.truststore": store,
            "security.ssl.rest.truststore-password": password,
            "security.ssl.rest.truststore-type": "PKCS12",
        }

    def cluster_options(self) -> dict[str, str]:
        """The cluster's own options: the REST ones, and Flink's internal TLS (always mutual) on the JobManager's
        RPC port, the blob server and the TaskManagers' RPC and data ports, which loopback leaves open to other
        users of the machine just as it left REST open. Clients talk REST only: they need `flink_options()`."""
        store, password = str(self.keystore), self.password
        return {
            **self.flink_options(),
            "security.ssl.internal.enabled": "true",
            "security.ssl.internal.keystore": store,
            "security.ssl.internal.keystore-password": password,
            "security.ssl.internal.key-password": password,
            "security.ssl.internal.keystore-type": "PKCS12",
            "security.ssl.internal.truststore": store,
            "security.ssl.internal.truststore-password": password,
            "security.ssl.internal.truststore-type": "PKCS12",
        }

    def client_context(self) -> ssl.SSLContext:
        """A client context that trusts only this certificate and presents it (with its key)."""
        try:
            context = ssl.create_default_context(cafile=str(self.cert))
            context.load_cert_chain(str(self.cert), str(self.key))
        except (OSError, ssl.SSLError) as exc:
            raise TlsError(f"The TLS material in {self.directory} is unusable ({exc}).", _again(self.directory)) \
                from None
        return context


def _check_private(path: Path, want_dir: bool) -> os.stat_result:
    """The path's stat when it is the caller's own, not a symlink, of the right kind and closed to group and
    others; TlsError naming it otherwise (FileNotFoundError passes through)."""
    info = os.lstat(path)
    kind = "directory" if want_dir else "file"
    directory = path if want_dir else path.parent
    if not (stat.S_ISDIR(info.st_mode) if want_dir else stat.S_ISREG(info.st_mode)):
        raise TlsError(f"The TLS {kind} {path} is not a {kind} (a symlink?): refused.", _again(directory))
    if info.st_uid != os.geteuid():
        raise TlsError(f"The TLS {kind} {path} belongs to uid {info.st_uid}, not to you (uid {os.geteuid()}): "
                       "refused.", _again(directory))
    if info.st_mode & 0o077:
        raise TlsError(f"The TLS {kind} {path} is open to others (mode {stat.S_IMODE(info.st_mode):04o}, must be "
                       f"{'0700' if want_dir else '0600'}): refused.", _again(directory))
    return info


def load(state_dir: Path) -> RestTls:
    """The state dir's TLS material, checked (0700 directory, 0600 files, the caller's own); TlsError otherwise."""
    directory = tls_dir(state_dir)
    try:
        _check_private(directory, want_dir=True)
        for name in FILES:
            _check_private(directory / name, want_dir=False)
        password = (directory / PASSWORD).read_text(encoding="ascii").strip()
    except FileNotFoundError as exc:
        raise TlsError(f"The cluster's REST API needs TLS material, and {exc.filename} is missing.",
                       _again(directory)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TlsError(f"Cannot read the TLS material in {directory} ({exc}).", _again(directory)) from None
    if not password:
        raise TlsError(f"The TLS password file {directory / PASSWORD} is empty.", _again(directory))
    return RestTls(directory, password)


def keytool_beside(java: str) -> str:
    """The `keytool` of the JDK/JRE that `java` belongs to; TlsError when there is none."""
    import shutil

    keytool = Path(os.path.realpath(java)).parent / "keytool"
    if os.access(keytool, os.X_OK):
        return str(keytool)
    found = shutil.which("keytool")
    if found:
        return found
    raise TlsError(f"No keytool beside {java} (needed to make the REST API's TLS key for --shared).",
                   "Install the full Java runtime (e.g. `apt-get install openjdk-17-jre-headless`).")


def ensure(state_dir: Path, keytool: str, validity_days: int = VALIDITY_DAYS) -> RestTls:
    """The state dir's TLS material: reused when complete, private and not about to expire, else made anew with
    `keytool`. A directory or file open to others is refused (TlsError), not repaired."""
    directory = tls_dir(state_dir)
    if directory.exists() or directory.is_symlink():
        _check_private(directory, want_dir=True)
        try:
            material = load(state_dir)
        except TlsError:
            if all((directory / name).exists() for name in FILES):
                raise  # complete but unsafe or unreadable: refused, not replaced behind the user's back
            material = None  # incomplete (an interrupted start): made anew below
        if material is not None and not _expiring(material):
            return material
    return _generate(directory, keytool, validity_days)


def _expiring(material: RestTls) -> bool:
    from cryptography import x509

    try:
        cert = x509.load_pem_x509_certificate(material.cert.read_bytes())
    except (OSError, ValueError):
        return True
    left = cert.not_valid_after_utc - datetime.datetime.now(datetime.timezone.utc)
    return left < datetime.timedelta(days=RENEW_DAYS)


def _write_private(path: Path, data: bytes) -> None:
    """`data` in a new file that is 0600 from the moment it exists."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, data)
    finally:
        os.close(fd)


def _generate(directory: Path, keytool: str, validity_days: int) -> RestTls:
    """A new self-signed RSA key and certificate for 127.0.0.1 and localhost, in a PKCS12 store and as PEM."""
    import secrets
    import subprocess

    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, pkcs12

    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(directory, 0o700)  # mkdir's mode is narrowed by the umask only
        for name in FILES:
            with contextlib.suppress(FileNotFoundError):
                (directory / name).unlink()
        password = secrets.token_urlsafe(24)
        _write_private(directory / PASSWORD, f"{password}\n".encode("ascii"))
    except OSError as exc:
        raise TlsError(f"Cannot write the TLS material into {directory} ({exc.strerror or exc}).",
                       "Set FLINKLAB_STATE_DIR to a writable directory.") from None
    store = directory / KEYSTORE
    # keytool reads the password from its file (`-storepass:file`): it is never on a command line
    args = [keytool, "-genkeypair", "-alias", ALIAS, "-keyalg", "RSA", "-keysize", "2048",
            "-validity", str(validity_days), "-dname", "CN=flinklab REST (local cluster)",
            "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-keystore", str(store), "-storetype", "PKCS12",
            "-storepass:file", str(directory / PASSWORD), "-noprompt"]
    old_umask = os.umask(0o077)  # keytool creates the store with the default mode: 0600 from the start
    try:
        proc = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=KEYTOOL_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise TlsError(f"keytool could not make the REST API's TLS key ({exc}).", _again(directory)) from None
    finally:
        os.umask(old_umask)
    if proc.returncode != 0 or not store.is_file():
        said = [line.strip() for line in (proc.stderr + proc.stdout).splitlines() if line.strip()]
        why = said[-1] if said else f"exit status {proc.returncode}"
        raise TlsError(f"keytool could not make the REST API's TLS key: {why}", _again(directory))
    os.chmod(store, 0o600)
    try:
        key, cert, _ = pkcs12.load_key_and_certificates(store.read_bytes(), password.encode("ascii"))
    except ValueError as exc:
        raise TlsError(f"The store keytool made ({store}) cannot be read ({exc}).", _again(directory)) from None
    if key is None or cert is None:
        raise TlsError(f"The store keytool made ({store}) has no key and certificate.", _again(directory))
    _write_private(directory / CERT, cert.public_bytes(Encoding.PEM))
    _write_private(directory / KEY, key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    return RestTls(directory, password)


def cluster_rest(url: str, state_dir: Path, timeout: float = 5.0) -> FlinkRest:
    """The REST client for the cluster at `url`: an `https://` URL is a `--shared` local cluster of this state dir
    (flinklab attaches to no https cluster), reached with the state dir's client certificate; http is plain."""
    return FlinkRest(url, timeout, ssl_context=client_context(url, state_dir))


def client_context(url: str, state_dir: Path) -> ssl.SSLContext | None:
    """The SSL context for a client of the cluster at `url` (None for http)."""
    if urlsplit(url).scheme != "https":
        return None
    return load(state_dir).client_context()


def cluster_client_options(url: str, state_dir: Path) -> dict[str, str]:
    """Flink options a Flink client (the gateway's sessions) needs for the cluster at `url`: the REST TLS options
    for an https one, nothing for http."""
    if urlsplit(url).scheme != "https":
        return {}
    return load(state_dir).flink_options()
