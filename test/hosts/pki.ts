/**
 * The harness's certificates (docs/scaling.md, "Credentials of each link"): a CA of the run's own and,
 * for each server and client of the reference deployment, a key and a certificate it signed, with
 * the host's address (and name) as subject alternative names and both TLS usages (a NATS node is a
 * server to clients and a client to the other nodes' routes). Made with the openssl command, in a
 * folder only root reads; a key given to an unprivileged server (PostgreSQL) is chowned to it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface Pki {
  dir: string;
  ca: string;
  /** cert and key of a name (made by issue()), and both in one PEM (HAProxy's crt). */
  cert(name: string): { cert: string; key: string; pem: string };
  issue(name: string, sans: { ip?: string[]; dns?: string[] }): { cert: string; key: string; pem: string };
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
}

export function createPki(dir: string): Pki {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ca = path.join(dir, 'ca.crt');
  const caKey = path.join(dir, 'ca.key');
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', caKey, '-out', ca, '-days', '2', '-subj', '/CN=data-import hosts harness CA'], dir);
  const files = (name: string) => ({ cert: path.join(dir, `${name}.crt`), key: path.join(dir, `${name}.key`), pem: path.join(dir, `${name}.pem`) });
  return {
    dir,
    ca,
    cert: (name) => {
      const f = files(name);
      if (!fs.existsSync(f.cert)) throw new Error(`no certificate ${name} was issued`);
      return f;
    },
    issue(name, sans) {
      const f = files(name);
      const csr = path.join(dir, `${name}.csr`);
      const ext = path.join(dir, `${name}.ext`);
      const alt = [...(sans.ip ?? []).map((ip) => `IP:${ip}`), ...(sans.dns ?? []).map((d) => `DNS:${d}`)];
      fs.writeFileSync(ext, [`subjectAltName=${alt.join(',')}`, 'keyUsage=critical,digitalSignature,keyEncipherment', 'extendedKeyUsage=serverAuth,clientAuth', 'basicConstraints=CA:FALSE', ''].join('\n'));
      openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f.key, '-out', csr, '-subj', `/CN=${name}`], dir);
      openssl(['x509', '-req', '-in', csr, '-CA', ca, '-CAkey', caKey, '-CAcreateserial', '-out', f.cert, '-days', '2', '-extfile', ext], dir);
      fs.writeFileSync(f.pem, fs.readFileSync(f.cert, 'utf8') + fs.readFileSync(f.key, 'utf8'), { mode: 0o600 });
      fs.chmodSync(f.key, 0o600);
      return f;
    },
  };
}
