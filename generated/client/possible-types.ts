
      export type PossibleTypesResultData = {
  "possibleTypes": {
    "Supporter": [
      "ChannelMember",
      "Patron"
    ]
  }
};
      const result: PossibleTypesResultData = {
  "possibleTypes": {
    "Supporter": [
      "ChannelMember",
      "Patron"
    ]
  }
};
      export default result;
    