import { InvalidArgumentError, Option } from 'commander';

/** `--url`, shared by the commands that talk to a running Portico. */
export function urlOption(): Option {
  return new Option(
    '--url <url>',
    'URL of the running Portico (default: PORTICO_URL, else http://$HOST:$PORT, 127.0.0.1 for an unset or wildcard HOST)',
  );
}

/** A parser for an integer option within [min, max]. */
export function integer(min: number, max: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value) || parsed < min || parsed > max)
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
    return parsed;
  };
}
