import { PasswordInput } from '@mantine/core';
import { SECRET_MASK } from '@lucky/contracts';
import { kitText } from '../texts';
import { isMask } from '../webhook/request';
import { HINT_BELOW } from './styles';

/** Selects the whole mask on focus, so typing replaces a stored secret instead of appending to it. */
const selectMask = (e: React.FocusEvent<HTMLInputElement>) => {
  if (isMask(e.currentTarget.value)) e.currentTarget.select();
};

/** A secret the daemon keeps: shown as its mask, sent back unchanged unless replaced. */
export function SecretInput(props: { label: string; value: string; onChange: (v: string) => void; error?: string | undefined; testId?: string; hint?: string | undefined }) {
  const kept = isMask(props.value) ? kitText('secretKept', { mask: SECRET_MASK }) : undefined;
  return (
    <PasswordInput
      label={props.label}
      value={props.value}
      onChange={(e) => props.onChange(e.currentTarget.value)}
      onFocus={selectMask}
      description={[props.hint, kept].filter(Boolean).join(' · ') || undefined}
      error={props.error}
      // PasswordInput marks its inner input data-invalid only; aria-invalid is what the forms look for
      // (scrollToProblem, tests), as on every other input.
      aria-invalid={props.error ? true : undefined}
      autoComplete="new-password"
      data-testid={props.testId}
      inputWrapperOrder={HINT_BELOW}
    />
  );
}
