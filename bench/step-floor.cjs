// The floor of bench/step-floor.js in CommonJS: the same POST without Node's ES module loader,
// which a CommonJS main file (like our bundles since they are CommonJS) does not start.
const { request } = require('node:http');

const body = JSON.stringify({ projectId: 'p', eventType: 'build', payload: { status: 'success' } });
const req = request(process.env.STEP_URL ?? 'http://127.0.0.1:9', {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-api-key': process.env.STEP_KEY ?? '',
  },
});
req.on('response', (res) => {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk) => {
    text += chunk;
  });
  res.on('end', () => process.stdout.write(`${res.statusCode} ${text.length}\n`));
});
req.on('error', (error) => {
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 1;
});
req.end(body);
