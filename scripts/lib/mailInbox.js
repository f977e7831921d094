#!/usr/bin/env node
/**
 * The front of the local mail inbox `npm run up` starts (scripts/lib/common.sh ensure_mail_sink):
 * maildev's web inbox shows customer e-mails (names, e-mail and postal addresses), and maildev
 * answers any web page (`Access-Control-Allow-Origin: *`, no authentication). Issue 39,
 * finding 7: maildev listens on an internal loopback port with a per-install password
 * (data/maildev/inbox.secret, 0600), and this front, on the inbox port (loopback only):
 *   - answers only a Host naming loopback (127.0.0.1, localhost, [::1]) and its port: a DNS
 *     rebinding page's Host is its own name, answered 421;
 *   - requires the password (HTTP Basic, user `inbox`), else 401;
 *   - drops every Access-Control-* header: no other origin may read the answers.
 *
 *   node scripts/lib/mailInbox.js <listen port> <maildev web port> <secret file>
 */
'use strict';
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const crypto = require('node:crypto');

const [listenPort, targetPort, secretFile] = process.argv.slice(2);
const secret = fs.readFileSync(secretFile, 'utf8').trim();
const expected = Buffer.from(`Basic ${Buffer.from(`inbox:${secret}`).toString('base64')}`);
const hosts = new Set(['127.0.0.1', 'localhost', '[::1]'].map((h) => `${h}:${listenPort}`));

function refusal(req) {
  if (!hosts.has(String(req.headers.host || '').toLowerCase())) return [421, {}, 'This inbox answers only on its loopback address.\n'];
  const got = Buffer.from(String(req.headers.authorization || ''));
  if (got.length !== expected.length || !crypto.timingSafeEqual(got, expected)) {
    return [401, { 'WWW-Authenticate': 'Basic realm="data-import mail inbox", charset="UTF-8"' }, 'The inbox password is in data/maildev/inbox.secret.\n'];
  }
  return null;
}

const withoutCors = (headers) => Object.fromEntries(Object.entries(headers).filter(([k]) => !k.toLowerCase().startsWith('access-control-')));

const server = http.createServer((req, res) => {
  const r = refusal(req);
  if (r) {
    res.writeHead(r[0], { 'Content-Type': 'text/plain; charset=utf-8', ...r[1] });
    res.end(r[2]);
    return;
  }
  const up = http.request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (ur) => {
    res.writeHead(ur.statusCode, withoutCors(ur.headers));
    ur.pipe(res);
  });
  up.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(up);
});

// maildev's live updates (socket.io websocket): the same checks, then the bytes as they are.
server.on('upgrade', (req, socket, head) => {
  const r = refusal(req);
  if (r) {
    socket.end(`HTTP/1.1 ${r[0]} Refused\r\nConnection: close\r\n\r\n`);
    return;
  }
  const up = net.connect(Number(targetPort), '127.0.0.1', () => {
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    up.write(`${lines.join('\r\n')}\r\n\r\n`);
    up.write(head);
    up.pipe(socket).pipe(up);
  });
  up.on('error', () => socket.destroy());
  socket.on('error', () => up.destroy());
});

server.listen(Number(listenPort), '127.0.0.1');
