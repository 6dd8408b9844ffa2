// `npm run build` / `npm run lint`: install what is missing, then run the turbo task.
import { build, install, turbo } from './lib/bootstrap.mjs';

const task = process.argv[2] ?? 'build';
if (task === 'build') build();
else {
  install();
  turbo(task);
}
