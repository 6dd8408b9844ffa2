/** A small line of the last samples (CPU, memory, poll time), drawn as SVG: no chart library. */
export function Sparkline(props: { values: readonly number[]; max?: number; width?: number; height?: number; color?: string; testId?: string }) {
  const { values } = props;
  const w = props.width ?? 72;
  const h = props.height ?? 18;
  const top = Math.max(props.max ?? 0, ...values, 1);
  const step = values.length > 1 ? w / (values.length - 1) : 0;
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${(h - 1 - (Math.max(0, v) / top) * (h - 2)).toFixed(1)}`).join(' ');
  return (
    <svg width={w} height={h} viewBox={`0 0 ${w} ${h}`} role="img" aria-hidden data-testid={props.testId} data-points={values.length} style={{ display: 'block' }}>
      <line x1={0} y1={h - 0.5} x2={w} y2={h - 0.5} stroke="var(--mantine-color-gray-3)" strokeWidth={1} />
      {values.length > 1 && <polyline points={points} fill="none" stroke={props.color ?? 'var(--mantine-color-blue-6)'} strokeWidth={1.5} strokeLinejoin="round" />}
      {values.length === 1 && <circle cx={1.5} cy={points.split(',')[1]} r={1.5} fill={props.color ?? 'var(--mantine-color-blue-6)'} />}
    </svg>
  );
}
