import type { GraphQLResolveInfo } from 'graphql';
import type { CharacterRecord, HumanRecord, DroidRecord } from '../../examples/starwars/data.js';
import type { StarWarsContext } from '../../examples/starwars/context.js';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
};

/** A character in the Star Wars trilogy. */
export type Character = {
  /** The episodes the character appears in. */
  appearsIn?: Maybe<Array<Maybe<Episode>>>;
  /** The character's friends, or an empty list if they have none. */
  friends?: Maybe<Array<Maybe<Character>>>;
  /** The character's id. */
  id: Scalars['String']['output'];
  /** The character's name. */
  name?: Maybe<Scalars['String']['output']>;
};

/** A mechanical creature in the Star Wars universe. */
export type Droid = Character & {
  __typename?: 'Droid';
  /** The episodes the droid appears in. */
  appearsIn?: Maybe<Array<Maybe<Episode>>>;
  /** The droid's friends, or an empty list if they have none. */
  friends?: Maybe<Array<Maybe<Character>>>;
  /** The droid's id. */
  id: Scalars['String']['output'];
  /** The droid's name. */
  name?: Maybe<Scalars['String']['output']>;
  /** The droid's primary function. */
  primaryFunction?: Maybe<Scalars['String']['output']>;
};

/** One of the films of the original trilogy. */
export type Episode =
  /** Star Wars: Episode V – The Empire Strikes Back (1980). */
  | 'EMPIRE'
  /** Star Wars: Episode VI – Return of the Jedi (1983). */
  | 'JEDI'
  /** Star Wars: Episode IV – A New Hope (1977). */
  | 'NEW_HOPE';

/** A humanoid creature in the Star Wars universe. */
export type Human = Character & {
  __typename?: 'Human';
  /** The episodes the human appears in. */
  appearsIn?: Maybe<Array<Maybe<Episode>>>;
  /** The human's friends, or an empty list if they have none. */
  friends?: Maybe<Array<Maybe<Character>>>;
  /** The human's home planet, or null if unknown. */
  homePlanet?: Maybe<Scalars['String']['output']>;
  /** The human's id. */
  id: Scalars['String']['output'];
  /** The human's name. */
  name?: Maybe<Scalars['String']['output']>;
};

/** The root of every Star Wars query. */
export type Query = {
  __typename?: 'Query';
  /** A droid by id; null when there is no such droid. */
  droid?: Maybe<Droid>;
  /** The hero of an episode, or of the whole saga when no episode is given. */
  hero?: Maybe<Character>;
  /** A human by id; null when there is no such human. */
  human?: Maybe<Human>;
};


/** The root of every Star Wars query. */
export type QueryDroidArgs = {
  id: Scalars['String']['input'];
};


/** The root of every Star Wars query. */
export type QueryHeroArgs = {
  episode?: InputMaybe<Episode>;
};


/** The root of every Star Wars query. */
export type QueryHumanArgs = {
  id: Scalars['String']['input'];
};



export type ResolverTypeWrapper<T> = Promise<T> | T;


export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;





/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  Character: ResolverTypeWrapper<CharacterRecord>;
  Droid: ResolverTypeWrapper<DroidRecord>;
  Episode: Episode;
  Human: ResolverTypeWrapper<HumanRecord>;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  Boolean: Scalars['Boolean']['output'];
  Character: CharacterRecord;
  Droid: DroidRecord;
  Human: HumanRecord;
  Query: Record<PropertyKey, never>;
  String: Scalars['String']['output'];
};

export type CharacterResolvers<ContextType = StarWarsContext, ParentType extends ResolversParentTypes['Character'] = ResolversParentTypes['Character']> = {
  __resolveType: TypeResolveFn<'Droid' | 'Human', ParentType, ContextType>;
};

export type DroidResolvers<ContextType = StarWarsContext, ParentType extends ResolversParentTypes['Droid'] = ResolversParentTypes['Droid']> = {
  appearsIn: Resolver<Maybe<Array<Maybe<ResolversTypes['Episode']>>>, ParentType, ContextType>;
  friends: Resolver<Maybe<Array<Maybe<ResolversTypes['Character']>>>, ParentType, ContextType>;
  id: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  name: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  primaryFunction: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type HumanResolvers<ContextType = StarWarsContext, ParentType extends ResolversParentTypes['Human'] = ResolversParentTypes['Human']> = {
  appearsIn: Resolver<Maybe<Array<Maybe<ResolversTypes['Episode']>>>, ParentType, ContextType>;
  friends: Resolver<Maybe<Array<Maybe<ResolversTypes['Character']>>>, ParentType, ContextType>;
  homePlanet: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  id: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  name: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type QueryResolvers<ContextType = StarWarsContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  droid: Resolver<Maybe<ResolversTypes['Droid']>, ParentType, ContextType, RequireFields<QueryDroidArgs, 'id'>>;
  hero: Resolver<Maybe<ResolversTypes['Character']>, ParentType, ContextType, Partial<QueryHeroArgs>>;
  human: Resolver<Maybe<ResolversTypes['Human']>, ParentType, ContextType, RequireFields<QueryHumanArgs, 'id'>>;
};

export type Resolvers<ContextType = StarWarsContext> = {
  Character: CharacterResolvers<ContextType>;
  Droid: DroidResolvers<ContextType>;
  Human: HumanResolvers<ContextType>;
  Query: QueryResolvers<ContextType>;
};

