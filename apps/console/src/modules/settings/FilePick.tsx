import { Button } from '@mantine/core';
import { useRef } from 'react';

/** A button that opens a file chooser; the input stays in the page for scripts and tests (`<testid>-input`). */
export function FilePick(props: { label: string; accept: string; loading: boolean; onFile: (f: File) => void; testid: string }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={input}
        type="file"
        accept={props.accept}
        hidden
        data-testid={`${props.testid}-input`}
        onChange={(e) => {
          const f = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          if (f) props.onFile(f);
        }}
      />
      <Button variant="default" size="xs" loading={props.loading} onClick={() => input.current?.click()} data-testid={props.testid}>
        {props.label}
      </Button>
    </>
  );
}
