/** Default USER.md: facts about the owner, filled in during the first-run ritual. */
export const USER_MD = `# USER.md — who you help

- Name: (unknown)
- How to address them: (unknown)
- Language: (unknown)
- Time zone: (unknown)

## Preferences
`;
