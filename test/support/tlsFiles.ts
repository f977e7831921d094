import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** PEM files of a test's own CA, a server certificate it signed for 127.0.0.1 (and localhost), and a client certificate. */
export interface TlsFiles {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/** Makes them in `dir` with the openssl command (P-256 keys, valid one day). */
export function makeTlsFiles(dir: string): TlsFiles {
  const f = (n: string) => path.join(dir, n);
  const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '1', '-subj', '/CN=test CA']);
  for (const [name, ext] of [['server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n'], ['client', 'extendedKeyUsage=clientAuth\n']] as const) {
    fs.writeFileSync(f(`${name}.ext`), ext);
    openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${name}`]);
    openssl(['x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f(`${name}.crt`), '-days', '1', '-extfile', f(`${name}.ext`)]);
  }
  return { ca: f('ca.crt'), serverCert: f('server.crt'), serverKey: f('server.key'), clientCert: f('client.crt'), clientKey: f('client.key') };
}
