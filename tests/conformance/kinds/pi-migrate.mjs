// Answer kinds of pi-migrate (see generate.mjs).
//
// For each old-version fixture (v1-*, v2-*): the file as pi rewrites it when
// it opens and migrates the session (SessionManager.open -> _rewriteFile,
// one JSON.stringify per entry). The generator's id queue makes pi's v1 ids
// the deterministic ones pi-session-tools gives, so the text must match
// `pi-migrate SESSION` byte for byte.

export const KINDS = {
	"migrate-stdout": {
		tool: "pi-migrate",
		scope: "session",
		only: (s) => /^v[12]-/.test(s.name),
		args: () => [],
		what: () => "the file after SessionManager.open (pi's migration rewrite)",
		stdout: (s) => {
			if (s.rewritten === undefined) throw new Error("generate.mjs does not pass the rewritten text");
			if (JSON.parse(s.rewritten.slice(0, s.rewritten.indexOf("\n"))).version !== 3)
				throw new Error(`${s.name}: pi did not migrate the copy`);
			return s.rewritten;
		},
	},
};
