// A platform that cannot be used at all (no connection, the wrong scheme, an untrusted certificate, no answer, a
// refused token) fails every read the same way. One line says so, naming the URL, the cause and what to check,
// instead of one line per document.
import { ApiError } from '../errors.js';

/** Certificate problems as Node and OpenSSL name them. */
const CERTIFICATE = /CERT|SELF_SIGNED|ISSUER/;
/** A TLS handshake answered by something that does not speak TLS (OpenSSL's names for it). */
const NOT_TLS = /^(ERR_SSL_WRONG_VERSION_NUMBER|ERR_SSL_PACKET_LENGTH_TOO_LONG|ERR_SSL_HTTP_REQUEST|EPROTO)$/;
/** The connection closed, or the answer was not HTTP: what a TLS server does with a plain http request. */
const CLOSED = /^(UND_ERR_SOCKET|ECONNRESET|EPIPE|HPE_.*)$/;

/** Why a connection failed and what to check, by the system's code for it. */
function connectionProblem(code: string, url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (code === 'ECONNREFUSED')
    return `the connection was refused (${code}). Is it running, and listening on port ${port}?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `the host name ${url.hostname} was not found (${code}). Is it spelled right, and can this machine resolve it (DNS, VPN)?`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `no connection could be made (${code}). Is the host up, and reachable from here (network, firewall, VPN)?`;
  }
  if (url.protocol === 'https:' && NOT_TLS.test(code)) {
    return `it does not speak TLS (${code}): it looks like a plain http server given as https://. Check the scheme and the port (plain http sends the token unencrypted: tapedeck allows it to loopback only, or with --insecure-http)`;
  }
  if (CERTIFICATE.test(code))
    return `its TLS certificate is not trusted (${code}). Is it the right host? A certificate from a private authority is trusted with NODE_EXTRA_CA_CERTS=FILE`;
  if (url.protocol === 'http:' && CLOSED.test(code))
    return `the connection closed without an HTTP answer (${code}). If it is an https server, the scheme is wrong: use https://`;
  return `the connection failed (${code}). Is it running, and is ${url.host} the right host and port?`;
}

/**
 * The one line for a failure no read can get past, or undefined for one that concerns its document only (a 404,
 * a 400): those are listed per document.
 */
export function platformProblem(e: unknown, baseUrl: string, tokenSource: string): string | undefined {
  if (!(e instanceof ApiError)) return undefined;
  const url = new URL(baseUrl);
  const at = `the platform at ${baseUrl}`;
  if (e.status === 401)
    return `${at} refused the token from ${tokenSource} (401 ${e.reason}). Is it a token for this platform, and still valid?`;
  if (e.status === 403)
    return `${at} does not let the token from ${tokenSource} read ${e.path} (403 ${e.reason}). Does the token have read access there?`;
  // The run's own --deadline is no fault of the platform: its reads are listed as they failed.
  if (e.status !== 0 || e.reason === 'deadline_exceeded') return undefined;
  if (e.reason === 'timeout')
    return `${at} did not answer ${e.method} ${e.path} (${e.message}). Is it up, and not overloaded? --timeout S waits longer`;
  // The client names the system's code last, in parentheses: "the connection failed (ECONNREFUSED)".
  const code = /^the connection failed \(([A-Za-z0-9_]+)\)$/.exec(e.message)?.[1];
  return code ? `cannot reach ${at}: ${connectionProblem(code, url)}` : `cannot use ${at}: ${e.line()}`;
}
