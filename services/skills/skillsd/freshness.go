package skillsd

import "github.com/skillsd/skillsd/services/skills/internal/refresh"

// KindGit is the Kind of a source that is a git checkout.
const KindGit = refresh.KindGit
