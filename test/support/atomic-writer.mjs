// @ts-check
/**
 * Child process of test/lib/atomic-file.slow.test.ts: rewrites the target given in argv[2] with
 * writeFileAtomic in a loop, forever, each version a JSON document of a different size that carries
 * its own length, so a torn file cannot pass for a complete one. Prints `ready` once the first
 * version is on disk; the test then kills it with SIGKILL at a random moment. Plain JavaScript on
 * plain node, importing src/lib/atomic-file.ts as the global setup built it (argv[3]): the test
 * starts it many times.
 */
const [target, atomicFile] = process.argv.slice(2);
if (target === undefined || atomicFile === undefined) throw new Error('usage: atomic-writer.mjs <target> <built atomic-file.js>');
/** @type {{ writeFileAtomic: (path: string, data: string) => Promise<void> }} */
const { writeFileAtomic } = await import(atomicFile);

// Made once, so that the loop spends its time writing (when a kill leaves a temporary file behind).
const fillers = [500_000, 1_200_000, 800_000, 2_000_000].map((length) => 'x'.repeat(length));

for (let version = 1; ; version += 1) {
  const filler = fillers[version % fillers.length] ?? '';
  await writeFileAtomic(target, `{"version":${version},"length":${filler.length},"filler":"${filler}"}`);
  if (version === 1) process.stdout.write('ready\n');
}
