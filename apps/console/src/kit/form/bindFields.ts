/**
 * Props that tie Mantine inputs to one object of a form: value, change and the field's error in one
 * spread, so a field is one line: `<TextInput label={…} {...b.text('name')} />`.
 */
import type { ChangeEvent } from 'react';
import type { Num } from './values';

type KeysOf<T, V> = { [K in keyof T]-?: T[K] extends V ? K : never }[keyof T] & string;

/**
 * `patch` applies a change to the object; `errorAt(path)` gives a field's message, the key being
 * looked up under `prefix` (`tls.` for the rule's `tls` object).
 */
export function bindFields<T extends object>(value: T, patch: (change: Partial<T>) => void, errorAt: (field: string) => string | undefined = () => undefined, prefix = '') {
  const set = <K extends keyof T>(k: K, v: T[K]) => patch({ [k]: v } as unknown as Partial<T>);
  const error = (field: string) => errorAt(prefix + field);
  return {
    text: <K extends KeysOf<T, string>>(k: K, field: string = k) => ({
      value: value[k] as string,
      onChange: (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => set(k, e.currentTarget.value as T[K]),
      error: error(field),
    }),
    number: <K extends KeysOf<T, Num>>(k: K, field: string = k) => ({
      value: value[k] as Num,
      onChange: (v: Num) => set(k, v as T[K]),
      error: error(field),
    }),
    check: <K extends KeysOf<T, boolean>>(k: K) => ({
      checked: value[k] as boolean,
      onChange: (e: ChangeEvent<HTMLInputElement>) => set(k, e.currentTarget.checked as T[K]),
    }),
    /** Select and SegmentedControl: one of the field's own values. */
    choice: <K extends KeysOf<T, string>>(k: K) => ({
      value: value[k] as string,
      onChange: (v: string | null) => {
        if (v !== null) set(k, v as T[K]);
      },
    }),
  };
}
