// ${name.path} in a scenario's strings: a value captured from an earlier
// answer (or one of the run's own: run, seed, now), looked up by its dotted
// path. A string that is one placeholder and nothing else takes the value
// as it is (a number stays a number); placeholders inside longer text are
// written as text.

const PLACEHOLDER = /\$\{([A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*)\}/g;
const WHOLE = /^\$\{([A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*)\}$/;

/** A placeholder that names nothing known: the scenario is wrong, not the server. */
export class UnknownValueError extends Error {}

function lookUp(path: string, values: Readonly<Record<string, unknown>>): unknown {
  let value: unknown = values;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || !(part in value))
      throw new UnknownValueError(`\${${path}} names nothing captured before this step`);
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** `template` with every placeholder in its strings replaced, at any depth. */
export function interpolate<T>(template: T, values: Readonly<Record<string, unknown>>): T {
  if (typeof template === 'string') {
    const whole = WHOLE.exec(template);
    if (whole) return lookUp(whole[1]!, values) as T;
    return template.replace(PLACEHOLDER, (_, path: string) => {
      const value = lookUp(path, values);
      return typeof value === 'string' ? value : JSON.stringify(value);
    }) as T;
  }
  if (Array.isArray(template)) return template.map((item: unknown) => interpolate(item, values)) as T;
  if (typeof template === 'object' && template !== null)
    return Object.fromEntries(Object.entries(template).map(([key, item]) => [key, interpolate(item, values)])) as T;
  return template;
}
