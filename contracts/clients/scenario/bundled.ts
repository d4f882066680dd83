import { readdir, readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScenario, type Scenario } from './scenario-format.js';

// The scenario library shipped with the package (fixtures/scenarios/): the
// same folder from the source tree and from the compiled dist/ tree.

export const bundledScenarioFolder = fileURLToPath(
  new URL(
    import.meta.url.includes('/dist/') ? '../../../../fixtures/scenarios/' : '../../../fixtures/scenarios/',
    import.meta.url,
  ),
);

export interface NamedScenario {
  /** The file name less `.json`. */
  name: string;
  file: string;
  scenario: Scenario;
}

/** Every bundled scenario, by name (a file that is not a scenario stops it: the library is tested). */
export async function loadBundledScenarios(folder = bundledScenarioFolder): Promise<NamedScenario[]> {
  const files = (await readdir(folder)).filter((file) => file.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) => ({
      name: basename(file, '.json'),
      file: `${folder}${file}`,
      scenario: parseScenario(file, await readFile(`${folder}${file}`, 'utf8')),
    })),
  );
}
