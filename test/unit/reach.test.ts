// The one line for a platform that cannot be used, by cause; and what stays a per-document failure.
import { describe, expect, it } from 'vitest';
import { platformProblem } from '../../src/run/reach.js';
import { ApiError } from '../../src/errors.js';

const failed = (code: string) => new ApiError('GET', '/x', 0, 'connection_failed', `the connection failed (${code})`);

describe('platformProblem', () => {
  it.each([
    [
      'https://api.example.com/',
      failed('ENOTFOUND'),
      'cannot reach the platform at https://api.example.com/: the host name api.example.com was not found (ENOTFOUND). Is it spelled right, and can this machine resolve it (DNS, VPN)?',
    ],
    ['https://api.example.com/', failed('EAI_AGAIN'), /the host name api\.example\.com was not found \(EAI_AGAIN\)/],
    [
      'https://api.example.com/',
      failed('EHOSTUNREACH'),
      /no connection could be made \(EHOSTUNREACH\)\. Is the host up, and reachable from here/,
    ],
    [
      'https://api.example.com/',
      failed('DEPTH_ZERO_SELF_SIGNED_CERT'),
      /its TLS certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\)\. Is it the right host\? .*NODE_EXTRA_CA_CERTS/,
    ],
    ['https://api.example.com/', failed('ERR_TLS_CERT_ALTNAME_INVALID'), /its TLS certificate is not trusted/],
    [
      'https://api.example.com:8443/',
      failed('ERR_SSL_WRONG_VERSION_NUMBER'),
      /it does not speak TLS \(ERR_SSL_WRONG_VERSION_NUMBER\): it looks like a plain http server given as https:\/\//,
    ],
    [
      'http://127.0.0.1:8443/',
      failed('UND_ERR_SOCKET'),
      /the connection closed without an HTTP answer \(UND_ERR_SOCKET\)\. If it is an https server, the scheme is wrong: use https:\/\//,
    ],
    [
      'http://127.0.0.1:80/',
      failed('ECONNREFUSED'),
      /the connection was refused \(ECONNREFUSED\)\. Is it running, and listening on port 80\?/,
    ],
    [
      'https://api.example.com/',
      failed('ESOMETHING'),
      'cannot reach the platform at https://api.example.com/: the connection failed (ESOMETHING). Is it running, and is api.example.com the right host and port?',
    ],
    [
      'https://api.example.com/',
      new ApiError('GET', '/x', 0, 'timeout', 'no response within 30000 ms'),
      'the platform at https://api.example.com/ did not answer GET /x (no response within 30000 ms). Is it up, and not overloaded? --timeout S waits longer',
    ],
    [
      'https://api.example.com/',
      new ApiError('GET', '/x', 0, 'connection_failed', 'the response was cut off (UND_ERR_SOCKET)'),
      'cannot use the platform at https://api.example.com/: GET /x: connection_failed: the response was cut off (UND_ERR_SOCKET)',
    ],
    [
      'https://api.example.com/',
      new ApiError('GET', '/iam/x', 403, 'permission_denied', 'no'),
      'the platform at https://api.example.com/ does not let the token from TAPEDECK_TOKEN read /iam/x (403 permission_denied). Does the token have read access there?',
    ],
  ])('%s, %s', (url, error, expected) => {
    expect(platformProblem(error, url, 'TAPEDECK_TOKEN')).toMatch(expected);
  });

  it.each([
    ['a 404', new ApiError('GET', '/x', 404, 'not_found', 'gone')],
    ['a 400', new ApiError('GET', '/x', 400, 'invalid_argument', 'bad')],
    ["the run's own --deadline", new ApiError('GET', '/x', 0, 'deadline_exceeded', 'the run passed its --deadline')],
    ['not an API error', new Error('boom')],
  ])('%s stays a failure of its document', (_, error) => {
    expect(platformProblem(error, 'https://api.example.com/', 'TAPEDECK_TOKEN')).toBeUndefined();
  });
});
