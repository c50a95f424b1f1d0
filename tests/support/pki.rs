//! Certificates made with `openssl` at test time (never committed keys): a test CA, server
//! certificates for `localhost` and for another name, one that expired in 2020, a self-signed
//! one, and a client certificate from a second CA. EC P-256 keys: fast to make.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Pki {
    pub dir: PathBuf,
}

impl Pki {
    /// Makes every certificate in a fresh directory under the system's temp dir.
    pub fn new(name: &str) -> Pki {
        let dir = std::env::temp_dir().join(format!("vi-pki-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let pki = Pki { dir };
        pki.ca("ca", "Visindigo Test CA");
        pki.ca("client-ca", "Visindigo Test Client CA");
        pki.leaf("server", "ca", "localhost", "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth");
        pki.leaf("wrong-host", "ca", "wrong.example", "subjectAltName=DNS:wrong.example\nextendedKeyUsage=serverAuth");
        pki.leaf("client", "client-ca", "visindigo client", "extendedKeyUsage=clientAuth");
        pki.expired("expired", "ca");
        pki.openssl(&[
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=Visindigo self-signed", "-addext", "subjectAltName=DNS:localhost", "-addext", "basicConstraints=critical,CA:FALSE",
            "-keyout", "self-signed.key", "-out", "self-signed.pem",
        ]);
        pki
    }

    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }

    pub fn pem(&self, file: &str) -> String {
        std::fs::read_to_string(self.path(file)).unwrap()
    }

    /// The identity the scripted server's https front serves: `<name>.pem` / `<name>.key`.
    pub fn server_identity(&self, name: &str, client_ca: Option<&str>) -> vi_scripted_server::TlsIdentity {
        vi_scripted_server::TlsIdentity {
            certificate_chain_pem: self.pem(&format!("{name}.pem")),
            private_key_pem: self.pem(&format!("{name}.key")),
            client_ca_pem: client_ca.map(|ca| self.pem(&format!("{ca}.pem"))),
        }
    }

    fn ca(&self, name: &str, subject: &str) {
        self.openssl(&[
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", &format!("/CN={subject}"),
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            "-keyout", &format!("{name}.key"), "-out", &format!("{name}.pem"),
        ]);
    }

    fn leaf(&self, name: &str, ca: &str, common_name: &str, extensions: &str) {
        std::fs::write(self.path(&format!("{name}.ext")), format!("basicConstraints=CA:FALSE\n{extensions}\n")).unwrap();
        self.openssl(&[
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-subj", &format!("/CN={common_name}"), "-keyout", &format!("{name}.key"), "-out", &format!("{name}.csr"),
        ]);
        self.openssl(&[
            "x509", "-req", "-in", &format!("{name}.csr"), "-CA", &format!("{ca}.pem"), "-CAkey", &format!("{ca}.key"),
            "-CAcreateserial", "-days", "2", "-extfile", &format!("{name}.ext"), "-out", &format!("{name}.pem"),
        ]);
    }

    /// A `localhost` certificate valid only on 1 January 2020 (`openssl x509` cannot date one
    /// in the past; `openssl ca` can).
    fn expired(&self, name: &str, ca: &str) {
        let config = "[ca]\ndefault_ca = test\n[test]\ndatabase = index.txt\nnew_certs_dir = .\nserial = serial.txt\n\
                      default_md = sha256\npolicy = any\nx509_extensions = leaf\n[any]\ncommonName = supplied\n\
                      [leaf]\nbasicConstraints = CA:FALSE\nsubjectAltName = DNS:localhost\nextendedKeyUsage = serverAuth\n";
        std::fs::write(self.path("ca.cnf"), config).unwrap();
        std::fs::write(self.path("index.txt"), "").unwrap();
        std::fs::write(self.path("serial.txt"), "1000\n").unwrap();
        self.openssl(&[
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-subj", "/CN=localhost", "-keyout", &format!("{name}.key"), "-out", &format!("{name}.csr"),
        ]);
        self.openssl(&[
            "ca", "-config", "ca.cnf", "-batch", "-cert", &format!("{ca}.pem"), "-keyfile", &format!("{ca}.key"),
            "-in", &format!("{name}.csr"), "-out", &format!("{name}.pem"), "-notext",
            "-startdate", "20200101000000Z", "-enddate", "20200102000000Z",
        ]);
    }

    fn openssl(&self, args: &[&str]) {
        run_in(&self.dir, "openssl", args);
    }
}

fn run_in(dir: &Path, program: &str, args: &[&str]) {
    let output = Command::new(program).args(args).current_dir(dir).output().unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(output.status.success(), "{program} {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
}

impl Drop for Pki {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
