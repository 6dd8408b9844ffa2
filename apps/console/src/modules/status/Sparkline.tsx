/** A small inline-SVG line chart: no chart library for a few dozen points. */
export function Sparkline(props: {
  values: number[];
  /** Fixed top of the scale (100 for percentages); the data's maximum otherwise. */
  max?: number;
  width?: number;
  height?: number;
  color?: string;
  label: string;
}) {
  const w = props.width ?? 240;
  const h = props.height ?? 48;
  const vals = props.values;
  const max = Math.max(props.max ?? 0, ...vals, 1e-9);
  const step = vals.length > 1 ? w / (vals.length - 1) : w;
  const pts = vals.map((v, i) => `${(i * step).toFixed(1)},${(h - 2 - (Math.max(0, v) / max) * (h - 4)).toFixed(1)}`);
  const color = props.color ?? 'var(--mantine-color-blue-6)';
  return (
    <svg
      role="img"
      aria-label={props.label}
      viewBox={`0 0 ${w} ${h}`}
      width="100%"
      height={h}
      preserveAspectRatio="none"
      style={{ display: 'block', background: 'var(--mantine-color-gray-0)', borderRadius: 4 }}
    >
      {pts.length > 1 && (
        <>
          <polygon points={`0,${h} ${pts.join(' ')} ${((vals.length - 1) * step).toFixed(1)},${h}`} fill={color} opacity={0.12} />
          <polyline points={pts.join(' ')} fill="none" stroke={color} strokeWidth={1.5} vectorEffect="non-scaling-stroke" />
        </>
      )}
    </svg>
  );
}

/** A horizontal bar for a share of a whole. */
export function Meter(props: { value: number; max: number; color?: string; label: string }) {
  const pct = props.max > 0 ? Math.min(100, Math.max(0, (props.value / props.max) * 100)) : 0;
  return (
    <svg role="img" aria-label={props.label} width="100%" height={8} style={{ display: 'block' }}>
      <rect x={0} y={0} width="100%" height={8} rx={4} fill="var(--mantine-color-gray-2)" />
      <rect x={0} y={0} width={`${pct}%`} height={8} rx={4} fill={props.color ?? 'var(--mantine-color-teal-6)'} />
    </svg>
  );
}
