"""Throwaway certificates for the suites' TLS checks, made with the `openssl` command."""
import os
import subprocess


def make_certificates(folder, fail, name="tickwire"):
    """A throwaway CA and a server certificate for 127.0.0.1 and localhost in `folder`; returns the
    paths of the CA, the server's chain and its key. `fail(words)` is called when openssl fails."""
    def openssl(*arguments):
        result = subprocess.run(["openssl"] + list(arguments), cwd=folder, capture_output=True, text=True)
        if result.returncode != 0:
            fail("openssl %s failed: %s" % (" ".join(arguments), result.stderr))
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=%s CA" % name)
    openssl("req", "-new", *key, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
    with open(os.path.join(folder, "server.ext"), "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "2", "-out", "server.pem",
            "-days", "2", "-extfile", "server.ext")
    return os.path.join(folder, "ca.pem"), os.path.join(folder, "server.pem"), os.path.join(folder, "server.key")
