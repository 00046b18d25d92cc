import type { KindDef } from './types.js';

export const rtmpIngest: KindDef = {
  kind: 'RtmpIngest',
  schema: 'rtmp-ingest.schema.json',
  seedKey: 'rtmp_ingests',
  identity: { by: 'id' },
  read: {
    method: 'GET',
    path: '/streaming/rtmp_ingests/v1/{id}',
    source: 'assumed',
    wrapper: 'rtmp_ingest',
    notFound: 'error',
  },
  update: {
    method: 'PATCH',
    path: '/streaming/rtmp_ingests/v1/{id}',
    source: 'spec',
    style: 'patch',
    idField: 'rtmp_ingest_id',
    bodyKey: 'rtmp_ingest',
  },
};
