// yaml-language-server driven as an editor drives it: its own process, the Language Server Protocol over stdio.
// Just enough of a client for the editor tests: open a document, get its diagnostics, hover a position.
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const server = join(root, 'node_modules/yaml-language-server/bin/yaml-language-server');

export interface Diagnostic {
  line: number;
  message: string;
}

/** What an editor with the Red Hat YAML extension sends: validation, hover and completion on; no schema store
 *  (it would fetch the network's catalogue), so a document's schema comes from its modeline alone. */
const settings = { yaml: { validate: true, hover: true, completion: true, schemaStore: { enable: false } } };

export class YamlLanguageServer {
  private readonly child: ChildProcess;
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly replies = new Map<number, (result: unknown) => void>();
  private readonly diagnostics = new Map<string, (d: Diagnostic[]) => void>();

  constructor() {
    this.child = spawn(process.execPath, [server, '--stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
    this.child.stdout!.on('data', (chunk: Buffer) => this.receive(chunk));
  }

  /** The handshake every client makes before anything else. */
  async initialize(): Promise<void> {
    await this.request('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: { workspace: { configuration: true }, textDocument: { hover: { contentFormat: ['markdown'] } } },
    });
    this.send({ method: 'initialized', params: {} });
    this.send({ method: 'workspace/didChangeConfiguration', params: { settings } });
  }

  /** Opens a document (its text need not be on disk: the uri only places it, for a relative modeline) and
   *  resolves with the diagnostics the server publishes for it, once it has loaded the schemas it names. */
  open(uri: string, text: string): Promise<Diagnostic[]> {
    const published = new Promise<Diagnostic[]>((done) => this.diagnostics.set(uri, done));
    this.send({
      method: 'textDocument/didOpen',
      params: { textDocument: { uri, languageId: 'yaml', version: 1, text } },
    });
    return published;
  }

  /** The hover text at a position (0-based line and character), as the editor would show it. */
  async hover(uri: string, line: number, character: number): Promise<string> {
    const r = (await this.request('textDocument/hover', { textDocument: { uri }, position: { line, character } })) as {
      contents?: { value?: string };
    } | null;
    return r?.contents?.value ?? '';
  }

  stop(): void {
    this.child.kill();
  }

  private request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    const reply = new Promise((done) => this.replies.set(id, done));
    this.send({ id, method, params });
    return reply;
  }

  private send(message: object): void {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }));
    this.child.stdin!.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, end).toString())?.[1]);
      if (this.buffer.length < end + 4 + length) return;
      const message = JSON.parse(this.buffer.subarray(end + 4, end + 4 + length).toString());
      this.buffer = this.buffer.subarray(end + 4 + length);
      this.handle(message);
    }
  }

  private handle(m: { id?: number; method?: string; params?: any; result?: unknown; error?: unknown }): void {
    if (m.id !== undefined && m.method) {
      // The server asks for its settings (workspace/configuration) and registers capabilities; it waits for a reply.
      const result =
        m.method === 'workspace/configuration'
          ? m.params.items.map((i: { section?: string }) =>
              i.section ? ((settings as Record<string, unknown>)[i.section] ?? null) : settings,
            )
          : null;
      this.send({ id: m.id, result });
    } else if (m.id !== undefined) {
      this.replies.get(m.id)?.(m.result ?? m.error);
      this.replies.delete(m.id);
    } else if (m.method === 'textDocument/publishDiagnostics') {
      const done = this.diagnostics.get(m.params.uri);
      this.diagnostics.delete(m.params.uri);
      const found: Diagnostic[] = m.params.diagnostics.map(
        (d: { range: { start: { line: number } }; message: string }) => ({
          line: d.range.start.line,
          message: d.message,
        }),
      );
      // In the order of the document: the server's own order is not meaningful.
      done?.(found.sort((a, b) => a.line - b.line || a.message.localeCompare(b.message)));
    }
  }
}
