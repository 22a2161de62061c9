/** The window a local model gets when `contextSize` is unset: its trained context, capped here. */
export const LOCAL_CONTEXT_CAP = 8192;
