/**
 * A resolver map that lacks a field of the SDL fails the typecheck (codegen.ts makes every field of
 * the generated `Resolvers` required), with the compiler's words: "Property 'heightInMeters' is
 * missing in type '{ …the whole map… }' but required in type 'HumanResolvers<…>'". This says it the
 * way a person fixes it: which `Type.field` has no resolver, and the file and position to add it at.
 */

/** `file(line,col): error TSnnnn: message`, as tsc and tsgo print it with `--pretty false`. */
const DIAGNOSTIC = /^(?<file>.+?)\((?<line>\d+),(?<column>\d+)\): error (?<code>TS\d+): (?<message>.*)$/;
/** TS2741: one property missing. */
const ONE_MISSING = /^Property '(?<field>[^']+)' is missing in type '.*' but required in type '(?<type>\w+)Resolvers<.*'\.$/;
/** TS2739 and TS2740: several missing ("…: a, b, c, and 5 more."). */
const SEVERAL_MISSING = /^Type '.*' is missing the following properties from type '(?<type>\w+)Resolvers<.*>': (?<fields>.+?)\.?$/;

/** The hint for a line of the checker's output, when it is about a resolver missing from a map. */
export function missingResolverHint(line: string): string | undefined {
  const diagnostic = DIAGNOSTIC.exec(line)?.groups;
  if (diagnostic === undefined) return undefined;
  const { file, line: row, column, code, message = '' } = diagnostic;
  let type: string | undefined;
  let fields: string[] = [];
  const one = code === 'TS2741' ? ONE_MISSING.exec(message)?.groups : undefined;
  const several = code === 'TS2739' || code === 'TS2740' ? SEVERAL_MISSING.exec(message)?.groups : undefined;
  if (one !== undefined) {
    type = one.type;
    fields = [one.field ?? ''];
  } else if (several !== undefined) {
    type = several.type;
    fields = (several.fields ?? '').split(', ').map((field) => field.replace(/^and /, ''));
  }
  if (type === undefined) return undefined;
  const named = fields.map((field) => (/^\d+ more$/.test(field) ? field : `${type}.${field}`)).join(', ');
  return `no resolver for ${named}: add ${fields.length === 1 ? 'it' : 'them'} to the ${type} resolvers at ${file}:${row}:${column}`;
}
