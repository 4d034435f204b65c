"""Review: which disputes wait for a person (approval), the policy a state keeps, every
approval given (log), and what a dry run or an approval would send (preview). Imports only
prepare/."""
