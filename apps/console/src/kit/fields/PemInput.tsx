import { Button, FileButton, Group, Textarea } from '@mantine/core';
import { mono } from './styles';

/** A PEM certificate or key: pasted, or read from a local file. */
export function PemInput(props: {
  label: string;
  uploadLabel: string;
  value: string;
  onValue: (pem: string) => void;
  error: string | undefined;
  placeholder: string | undefined;
  minRows?: number;
  maxRows?: number;
  testId: string;
  uploadTestId?: string;
}) {
  const read = (file: File | null) => {
    if (file) void file.text().then(props.onValue);
  };
  return (
    <Textarea
      label={
        <Group gap="xs" component="span">
          <span>{props.label}</span>
          <FileButton onChange={read} accept=".pem,.crt,.cer,.key,text/plain">
            {(p) => (
              <Button {...p} size="compact-xs" variant="light" data-testid={props.uploadTestId}>
                {props.uploadLabel}
              </Button>
            )}
          </FileButton>
        </Group>
      }
      placeholder={props.placeholder}
      autosize
      minRows={props.minRows ?? 3}
      maxRows={props.maxRows ?? 8}
      value={props.value}
      onChange={(e) => props.onValue(e.currentTarget.value)}
      error={props.error}
      styles={mono}
      data-testid={props.testId}
    />
  );
}
