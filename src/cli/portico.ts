#!/usr/bin/env node
import 'reflect-metadata';
import { runCli } from './program';

runCli(process.argv).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
