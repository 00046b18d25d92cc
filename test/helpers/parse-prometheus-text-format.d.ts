// The package ships no types: what the agent's test reads of its answer (one entry per metric family).
declare module 'parse-prometheus-text-format' {
  interface Sample {
    value?: string;
    count?: string;
    sum?: string;
    labels?: Record<string, string>;
    buckets?: Record<string, string>;
  }
  export interface MetricFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: Sample[];
  }
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
