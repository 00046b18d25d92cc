// The workflow tests' platform and documents: live resources, some the documents change, a secret that must never
// be printed, and one document to create.
import { testdir } from './cli.js';

export const seed = () => ({
  vods: [
    { id: 'v1', project_id: 'p', name: 'Old' },
    { id: 'v2', project_id: 'p', name: 'Same' },
  ],
  rtmp_ingests: [{ id: 'ing1', project_id: 'p', name: 'Cam', key: 'live_sk_do_not_print' }],
  policies: [{ resource_key: 'o/organization', policy: { bindings: [] }, etag: 'e1' }],
});
export const docs = () =>
  testdir({
    'a.yaml': [
      { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } },
      { kind: 'Vod', name: 'same', id: 'v2', spec: { name: 'Same' } },
      { kind: 'RtmpIngest', name: 'cam', id: 'ing1', spec: { name: 'Camera | 1', description: 'has `ticks`' } },
      {
        kind: 'Policy',
        name: 'org',
        spec: { resource_key: 'o/organization', policy: { bindings: [{ role_id: 'owner', account_ids: ['a'] }] } },
      },
      { kind: 'Offer', name: 'new', spec: { project_id: 'p', name: 'New offer', priority: 3 } },
    ],
  });
