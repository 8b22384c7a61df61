/**
 * A throwaway certificate authority made with the `openssl` command: a CA, a server certificate for
 * a test host name and 127.0.0.1, and a client certificate for mTLS. Files go in the given folder.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The name in the server certificate; clients reach 127.0.0.1 and check this name (server name override). */
export const TEST_SERVER_NAME = 'temporal.agentd.test';

export interface TestPki {
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function newKey(path: string): void {
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', path]);
}

function issue(dir: string, name: string, subject: string, extensions: string[]): void {
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  const ext = join(dir, `${name}.ext`);
  newKey(key);
  openssl(['req', '-new', '-key', key, '-subj', subject, '-out', csr]);
  writeFileSync(ext, `${extensions.join('\n')}\n`);
  openssl([
    'x509', '-req', '-in', csr, '-CA', join(dir, 'ca.pem'), '-CAkey', join(dir, 'ca.key'),
    '-set_serial', String(Date.now()), '-days', '2', '-extfile', ext, '-out', join(dir, `${name}.pem`),
  ]);
}

export function makeTestPki(dir: string): TestPki {
  newKey(join(dir, 'ca.key'));
  openssl([
    'req', '-x509', '-new', '-key', join(dir, 'ca.key'), '-subj', '/CN=agentd test CA', '-days', '2',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    '-out', join(dir, 'ca.pem'),
  ]);
  issue(dir, 'server', `/CN=${TEST_SERVER_NAME}`, [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature',
    'extendedKeyUsage=serverAuth',
    `subjectAltName=DNS:${TEST_SERVER_NAME},IP:127.0.0.1`,
  ]);
  issue(dir, 'client', '/CN=agentd-worker', [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature',
    'extendedKeyUsage=clientAuth',
  ]);
  return {
    caCert: join(dir, 'ca.pem'),
    serverCert: join(dir, 'server.pem'),
    serverKey: join(dir, 'server.key'),
    clientCert: join(dir, 'client.pem'),
    clientKey: join(dir, 'client.key'),
  };
}
