// The one line every measured bench process ends with: what it cost since `started` (wall, CPU, peak RSS of this
// process alone) and what it adds, as JSON on stderr after `BENCH ` (bench/harness.ts reads it).
export function reportCost(started, cpu0, extra) {
  const cpu = process.cpuUsage(cpu0);
  const report = {
    code: extra.code ?? 0,
    wall_ms: Math.round(performance.now() - started),
    cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
    max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    ...extra,
  };
  process.stderr.write(`\nBENCH ${JSON.stringify(report)}\n`);
}
