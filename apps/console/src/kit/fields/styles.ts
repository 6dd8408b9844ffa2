/** Addresses, lists and code-like values read better in a fixed-width font. */
export const mono = { input: { fontFamily: 'monospace', fontSize: 12 } };

/** Hints under the inputs, so inputs side by side line up whatever the hints' lengths. */
export const HINT_BELOW: ('label' | 'input' | 'description' | 'error')[] = ['label', 'input', 'description', 'error'];
