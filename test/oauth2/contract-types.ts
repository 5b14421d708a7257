/**
 * Type tests of the OAuth2 client's grant parameters, checked by `npm run typecheck` (tsconfig.json
 * includes test/) and not run: they take their types from the generated contract
 * (generated/openapi/oauth2.ts, from openapi/oauth2.yaml). An assertion that does not hold, or an
 * `@ts-expect-error` that meets no error, fails the typecheck.
 */
import { expectTypeOf } from 'vitest';
import type { GrantParams, PasswordGrantRequest } from '@channel-graph/oauth2';

// The password grant's fields as the contract gives them, its grant_type set by the strategy.
expectTypeOf<GrantParams<PasswordGrantRequest>['scope']>().toEqualTypeOf<string | undefined>();
expectTypeOf<GrantParams<PasswordGrantRequest>['username']>().toEqualTypeOf<string | undefined>();

/** Provider extensions are allowed beside the contract's fields. */
export const withExtension: GrantParams<PasswordGrantRequest> = { scope: 'read', extension: 1 };

// @ts-expect-error scope is a string in openapi/oauth2.yaml
export const wrongScope: GrantParams<PasswordGrantRequest> = { scope: 1 };
