// File names that break a command line quoted by hand: quotes, substitutions, separators,
// option look-alikes, white space, globs, escapes. Remote listings must show each exactly and
// run none of them.
export const HOSTILE_NAMES: readonly string[] = [
  "it's",
  '$(touch PWNED)',
  '`touch PWNED`',
  'a;touch PWNED',
  'sp ace',
  'new\nline',
  '-rf',
  '--help',
  'tab\there',
  '"dq"',
  '*?[ ]',
  '\\back',
  '!bang',
];
