// Run on the host by the role as `fleetls-agent health-check` (the executable carries this
// file: hosts have no node), or by a plain node: one grpc.health.v1 Health/Check call to
// the agent over Node's own http2, retried until SERVING or the timeout. Plaintext (h2c)
// or TLS with an optional client certificate. No top-level await: the executable's main
// script is CommonJS.
import fs from 'node:fs';
import http2 from 'node:http2';

const env = process.env;
const address = env.FLEETLS_CHECK_ADDRESS;
const deadline = Date.now() + Number(env.FLEETLS_CHECK_TIMEOUT_S || 20) * 1000;
const STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

function check() {
  return new Promise((resolve, reject) => {
    const tls = env.FLEETLS_CHECK_TLS === '1';
    const options = tls
      ? {
          ca: fs.readFileSync(env.FLEETLS_CHECK_CA_FILE),
          servername: env.FLEETLS_CHECK_SERVERNAME,
          ...(env.FLEETLS_CHECK_CERT ? { cert: env.FLEETLS_CHECK_CERT, key: env.FLEETLS_CHECK_KEY } : {}),
        }
      : {};
    const session = http2.connect(`${tls ? 'https' : 'http'}://${address}`, options);
    session.on('error', reject);
    session.setTimeout(5000, () => session.destroy(new Error('no answer within 5 s')));
    const req = session.request({
      ':method': 'POST',
      ':path': '/grpc.health.v1.Health/Check',
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    const chunks = [];
    let grpcStatus;
    let grpcMessage = '';
    req.on('response', (headers) => {
      grpcStatus ??= headers['grpc-status'];
    });
    req.on('trailers', (trailers) => {
      grpcStatus = trailers['grpc-status'];
      grpcMessage = trailers['grpc-message'] ?? '';
    });
    req.on('data', (c) => chunks.push(c));
    req.on('error', reject);
    req.on('end', () => {
      session.close();
      if (grpcStatus !== '0') return reject(new Error(`grpc-status ${grpcStatus} ${decodeURIComponent(grpcMessage)}`));
      // One length-prefixed HealthCheckResponse: field 1 (status) is a varint, absent when 0.
      const msg = Buffer.concat(chunks).subarray(5);
      resolve(STATUS[msg[0] === 0x08 ? msg[1] : 0] ?? 'UNKNOWN');
    });
    // An empty HealthCheckRequest (service "" = the whole server), length-prefixed.
    req.end(Buffer.alloc(5));
  });
}

async function main() {
  let last = 'no attempt';
  while (Date.now() < deadline) {
    try {
      last = await check();
      if (last === 'SERVING') {
        console.log(`fleetls-agent at ${address}: SERVING`);
        process.exit(0);
      }
    } catch (err) {
      last = err.message;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  console.error(`fleetls-agent at ${address} did not answer SERVING: ${last}`);
  process.exit(1);
}

void main();
