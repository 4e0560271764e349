package skillsd

import "github.com/skillsd/skillsd/services/skills/internal/refresh"

// CheckConfig runs the steps of New that read the configuration, and no
// others: it loads config.yaml (Options.ConfigFile, else the first skills
// folder's), applies the environment (Options.Getenv) over it and resolves
// the listener's policy (authentication and its tokens, TLS files, hidden
// paths) with Options.Edge.Flags on top. It reads no skill, clones nothing,
// opens no store and no port, so a deployment can check its configuration
// where the server will not run. It returns the file it loaded ("" for
// none) and the first error New or Guard would stop at in those steps.
func CheckConfig(opts Options) (string, error) {
	getenv, home, cwd, err := opts.environment()
	if err != nil {
		return "", err
	}
	cfg, file, err := loadConfig(opts.ConfigFile, refresh.Dirs(opts.SkillsDirs, refresh.Env{Getenv: getenv, Cwd: cwd, Home: home}), getenv)
	if err != nil {
		return file, err
	}
	if _, err := newGuard(opts, cfg, file, getenv); err != nil {
		return file, err
	}
	return file, nil
}
