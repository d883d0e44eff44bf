//! No import circles between the files of a crate (`shared/DESIGN.md` §2: "no import circles,
//! at any level"; issue 11's done-when). For each library crate (codec, gateway-core, gateway,
//! sim) the test reads the module tree from `lib.rs` (`mod` declarations, test-only modules
//! left out), every `use` tree and every `crate::` / `super::` / `self::` path in the code, and
//! resolves each path to the file that defines its item (following `use` re-exports, so a
//! `mod.rs` that only hands names on is not a knot). Then it lists the strongly connected
//! components of the file graph.
//!
//! The crate graph itself is acyclic by construction (cargo refuses a circle); this looks
//! inside each crate. It is the equivalent of `cargo modules dependencies --acyclic`, without
//! a tool to install.
//!
//! To see what ties a circle: `MODULE_CYCLES_DEBUG=1` prints the edges inside each circle found,
//! `MODULE_CYCLES_TRACE=1` every edge with the path that made it (run with `--nocapture`).
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Circles kept on purpose: none. The test fails when any circle appears; a circle may only be
/// listed here with what ties it and why it stays.
const KNOWN: &[&[&str]] = &[];

const CRATES: &[&str] = &["codec", "gateway-core", "gateway", "sim"];

/// Module path (segments below the crate root) → file.
type Modules = HashMap<Vec<String>, PathBuf>;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Removes `//` comments (doc comments too), `/* */` comments and the insides of string
/// literals, so that only code is scanned.
fn code_only(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'"' => {
                out.push('"');
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                out.push('"');
                i += 1;
            }
            // A char literal such as '"' or '{' (lifetimes have no closing quote nearby).
            b'\'' if b.get(i + 2) == Some(&b'\'') => {
                out.push_str("' '");
                i += 3;
            }
            b'\'' if b.get(i + 1) == Some(&b'\\') && b.get(i + 3) == Some(&b'\'') => {
                out.push_str("' '");
                i += 4;
            }
            c => {
                out.push(c as char);
                i += 1;
            }
        }
    }
    out
}

/// `code` without its inline test modules (`#[cfg(test)] mod name { .. }`).
fn without_test_modules(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut s = code;
    while let Some(at) = s.find("#[cfg(test)]") {
        out.push_str(&s[..at]);
        let after = &s[at + "#[cfg(test)]".len()..];
        let head = after.trim_start();
        let decl = head
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub ");
        let brace = decl.find('{');
        let semi = decl.find(';');
        let inline_mod =
            decl.starts_with("mod ") && brace.is_some_and(|b| semi.is_none_or(|c| b < c));
        if !inline_mod {
            s = after;
            continue;
        }
        let body_start = after.len() - decl.len() + brace.unwrap_or(0);
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, c) in after[body_start..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = body_start + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        s = &after[end..];
    }
    out.push_str(s);
    out
}

/// `mod name;` declarations of a file, leaving out those under `#[cfg(test)]`.
fn child_modules(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut test_only = false;
    for line in code.lines().map(str::trim) {
        if line.starts_with("#[cfg(test)]") {
            test_only = true;
            continue;
        }
        let decl = line
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub(super) ")
            .trim_start_matches("pub ");
        if let Some(rest) = decl.strip_prefix("mod ") {
            if let Some(name) = rest.strip_suffix(';') {
                if !test_only {
                    out.push(name.trim().to_owned());
                }
            }
        }
        if !line.starts_with("#[") && !line.is_empty() {
            test_only = false;
        }
    }
    out
}

fn read_modules(src: &Path) -> Modules {
    let mut mods = Modules::new();
    let mut todo = vec![(Vec::<String>::new(), src.join("lib.rs"))];
    while let Some((path, file)) = todo.pop() {
        let code = code_only(&std::fs::read_to_string(&file).expect("read module"));
        let dir = if file.ends_with("lib.rs") || file.ends_with("mod.rs") {
            file.parent().unwrap().to_path_buf()
        } else {
            file.with_extension("")
        };
        for name in child_modules(&code) {
            let mut p = path.clone();
            p.push(name.clone());
            let flat = dir.join(format!("{name}.rs"));
            let nested = dir.join(&name).join("mod.rs");
            let f = if flat.exists() { flat } else { nested };
            assert!(f.exists(), "module {p:?} has no file");
            todo.push((p, f));
        }
        mods.insert(path, file);
    }
    mods
}

/// Expands one `use` tree (`a::{b, c::{d as e}, f::*}`) into its leaf paths, each with the
/// name it binds (`None` for a glob).
fn expand_use(tree: &str, prefix: &str, out: &mut Vec<(String, Option<String>)>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let base = join(prefix, head);
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_use(&inner[start..i], &base, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand_use(&inner[start..], &base, out);
        return;
    }
    if tree.is_empty() {
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((p, a)) => (p.trim(), Some(a.trim().to_owned())),
        None => (tree, None),
    };
    let full = join(prefix, path);
    if full.ends_with("::*") {
        out.push((full.trim_end_matches("::*").to_owned(), None));
        return;
    }
    let full = full.trim_end_matches("::self").to_owned();
    let name = alias.or_else(|| full.rsplit("::").next().map(str::to_owned));
    out.push((full, name));
}

fn join(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (_, true) => prefix.to_owned(),
        _ => format!("{prefix}::{path}"),
    }
}

/// Every `use` statement's leaves, and every other `crate::` / `super::` / `self::` path.
fn references(code: &str) -> (Vec<(String, Option<String>)>, Vec<String>) {
    let mut uses = Vec::new();
    let mut rest = String::with_capacity(code.len());
    let mut s = code;
    while let Some(at) = find_use(s) {
        rest.push_str(&s[..at]);
        let body = &s[at + 4..];
        let end = body.find(';').unwrap_or(body.len());
        expand_use(&body[..end], "", &mut uses);
        s = body.get(end + 1..).unwrap_or("");
    }
    rest.push_str(s);
    let mut paths = Vec::new();
    for kw in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(i) = rest[from..].find(kw) {
            let at = from + i;
            let before = rest[..at].chars().next_back();
            from = at + kw.len();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
                || rest[..at].trim_end().ends_with("(in")
            {
                // Part of a longer path, or a visibility (`pub(in crate::x)`), not an import.
                continue;
            }
            let tail: String = rest[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            paths.push(tail.trim_end_matches(':').to_owned());
        }
    }
    (uses, paths)
}

/// Start of the next `use ` statement (at a word boundary).
fn find_use(s: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = s[from..].find("use ") {
        let at = from + i;
        let before = s[..at].chars().next_back();
        if before.is_none_or(|c| !(c.is_alphanumeric() || c == '_')) {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

struct CrateGraph {
    mods: Modules,
    /// Module path → (bound name → the path it was imported from).
    imports: HashMap<Vec<String>, HashMap<String, String>>,
    /// Module path → modules it glob-imports.
    globs: HashMap<Vec<String>, Vec<String>>,
}

impl CrateGraph {
    /// The module a path's prefix (`crate`, `super`, `self`) starts from, and the rest.
    fn base<'p>(&self, module: &[String], path: &'p str) -> Option<(Vec<String>, Vec<&'p str>)> {
        let mut segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
        let mut at: Vec<String> = match segs.first() {
            Some(&"crate") => {
                segs.remove(0);
                Vec::new()
            }
            Some(&"self") => {
                segs.remove(0);
                module.to_vec()
            }
            Some(&"super") => module.to_vec(),
            // A path that starts with a child module is relative to this module (2018
            // paths); anything else names another crate.
            Some(first) => {
                let mut child = module.to_vec();
                child.push((*first).to_owned());
                if !self.mods.contains_key(&child) {
                    return None;
                }
                module.to_vec()
            }
            None => return None,
        };
        while segs.first() == Some(&"super") {
            segs.remove(0);
            at.pop()?;
        }
        Some((at, segs))
    }

    /// The file that defines what `path` names, seen from `module`.
    fn resolve(&self, module: &[String], path: &str, depth: u32) -> Option<PathBuf> {
        if depth > 8 {
            return None;
        }
        let (mut at, segs) = self.base(module, path)?;
        for seg in &segs {
            let mut next = at.clone();
            next.push((*seg).to_owned());
            if self.mods.contains_key(&next) {
                at = next;
                continue;
            }
            // An item of module `at`: defined there unless `at` imported the name.
            if let Some(from) = self.imports.get(&at).and_then(|m| m.get(*seg)) {
                if let Some(f) = self.resolve(&at, from, depth + 1) {
                    return Some(f);
                }
                // Imported from another crate (or unresolvable): no edge inside this crate.
                return None;
            }
            return self.mods.get(&at).cloned();
        }
        self.mods.get(&at).cloned()
    }
}

/// The file graph of the crate whose sources are in `src`: file → files it imports.
fn graph(src: &Path) -> HashMap<PathBuf, BTreeSet<PathBuf>> {
    let mods = read_modules(src);
    let mut parsed = HashMap::new();
    let mut imports = HashMap::new();
    let mut globs = HashMap::new();
    for (path, file) in &mods {
        let code = without_test_modules(&code_only(&std::fs::read_to_string(file).expect("read")));
        let (uses, paths) = references(&code);
        let mut names = HashMap::new();
        for (p, name) in &uses {
            match name {
                Some(n) if n != "self" => {
                    names.insert(n.clone(), p.clone());
                }
                _ => globs
                    .entry(path.clone())
                    .or_insert_with(Vec::new)
                    .push(p.clone()),
            }
        }
        imports.insert(path.clone(), names);
        parsed.insert(path.clone(), (uses, paths));
    }
    let g = CrateGraph {
        mods,
        imports,
        globs,
    };
    let mut edges: HashMap<PathBuf, BTreeSet<PathBuf>> = HashMap::new();
    for (path, (uses, paths)) in &parsed {
        let from = g.mods[path].clone();
        let targets = uses
            .iter()
            .map(|(p, _)| p.clone())
            .chain(paths.iter().cloned())
            .chain(g.globs.get(path).into_iter().flatten().cloned());
        for p in targets {
            if let Some(to) = g.resolve(path, &p, 0) {
                if std::env::var_os("MODULE_CYCLES_TRACE").is_some() && to != from {
                    eprintln!("TRACE {} -> {} via {p}", from.display(), to.display());
                }
                if to != from {
                    edges.entry(from.clone()).or_default().insert(to);
                }
            }
        }
        edges.entry(from).or_default();
    }
    edges
}

/// Strongly connected components with more than one file (Tarjan).
fn circles(edges: &HashMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct T<'a> {
        edges: &'a HashMap<PathBuf, BTreeSet<PathBuf>>,
        index: HashMap<&'a PathBuf, usize>,
        low: HashMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on: BTreeSet<&'a PathBuf>,
        next: usize,
        out: Vec<Vec<PathBuf>>,
    }
    impl<'a> T<'a> {
        fn visit(&mut self, v: &'a PathBuf) {
            self.index.insert(v, self.next);
            self.low.insert(v, self.next);
            self.next += 1;
            self.stack.push(v);
            self.on.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let l = self.low[v].min(self.low[w]);
                    self.low.insert(v, l);
                } else if self.on.contains(w) {
                    let l = self.low[v].min(self.index[w]);
                    self.low.insert(v, l);
                }
            }
            if self.low[v] == self.index[v] {
                let mut scc = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    scc.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    scc.sort();
                    self.out.push(scc);
                }
            }
        }
    }
    let mut t = T {
        edges,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    let mut nodes: Vec<&PathBuf> = edges.keys().collect();
    nodes.sort();
    for v in nodes {
        if !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.out
}

fn relative(root: &Path, scc: &[PathBuf]) -> Vec<String> {
    scc.iter()
        .map(|p| {
            p.strip_prefix(root)
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

#[test]
fn no_crate_has_an_import_circle_between_its_files_but_the_known_ones() {
    let mut found: Vec<Vec<String>> = Vec::new();
    let root = workspace();
    for krate in CRATES {
        let edges = graph(&root.join(krate).join("src"));
        assert!(
            edges.len() > 5,
            "{krate}: the module tree was read ({} files)",
            edges.len()
        );
        for scc in circles(&edges) {
            if std::env::var_os("MODULE_CYCLES_DEBUG").is_some() {
                for f in &scc {
                    for t in edges[f].iter().filter(|t| scc.contains(t)) {
                        eprintln!("{} -> {}", f.display(), t.display());
                    }
                }
            }
            found.push(relative(&root, &scc));
        }
    }
    found.sort();
    let known: Vec<Vec<String>> = KNOWN
        .iter()
        .map(|c| c.iter().map(|s| (*s).to_owned()).collect())
        .collect();
    assert_eq!(
        found, known,
        "import circles between files (each list is one circle): cut it by moving the shared \
         type into the lowest file its users can import"
    );
}

#[test]
fn the_checker_finds_a_circle_through_a_re_export_and_a_super_path() {
    // a.rs uses b's item through lib.rs's re-export; b.rs uses a's item with `super::`.
    let dir = std::env::temp_dir().join(format!("bgw-module-cycles-{}", std::process::id()));
    let src = dir.join("fake").join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("lib.rs"),
        "//! x\nmod a;\nmod b;\n#[cfg(test)]\nmod t;\npub use b::Thing;\n",
    )
    .unwrap();
    std::fs::write(
        src.join("a.rs"),
        "use crate::Thing;\npub struct A(Thing);\n",
    )
    .unwrap();
    std::fs::write(
        src.join("b.rs"),
        "/// uses crate::nothing in a comment\npub struct Thing(super::a::A);\n",
    )
    .unwrap();
    let mods = read_modules(&src);
    assert_eq!(mods.len(), 3, "the test-only module is left out");
    let code = code_only(&std::fs::read_to_string(src.join("b.rs")).unwrap());
    let (uses, paths) = references(&code);
    assert!(uses.is_empty());
    assert_eq!(paths, ["super::a::A"]);
    let mut out = Vec::new();
    expand_use("crate::{x::{Y, Z as W}, v::*}", "", &mut out);
    assert_eq!(
        out,
        [
            ("crate::x::Y".to_owned(), Some("Y".to_owned())),
            ("crate::x::Z".to_owned(), Some("W".to_owned())),
            ("crate::v".to_owned(), None),
        ]
    );
    let found = circles(&graph(&src));
    assert_eq!(found, [vec![src.join("a.rs"), src.join("b.rs")]]);
    // Without b's use of a, no circle.
    std::fs::write(src.join("b.rs"), "pub struct Thing;\n").unwrap();
    assert!(circles(&graph(&src)).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
