// Loaded before every test file (setupFiles in both vitest configs): whatever temporary directories the file made
// are removed once it has finished, passed or failed.
import { afterAll } from 'vitest';
import { removeTempDirs } from './tmp.js';

afterAll(removeTempDirs);
