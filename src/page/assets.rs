//! The page's one style sheet and one script, inline (a page is one file),
//! allowed by their hashes in the Content-Security-Policy: nothing else can
//! run or load. The page works without the script: the filters are radio
//! buttons styled by CSS, every entry has an anchor, branches are links.

/// The style sheet.
pub(crate) const CSS: &str = r#"
:root{--bg:#fff;--fg:#1d1d1f;--dim:#6b6b76;--line:#ddd;--side:#f6f6f8;--user:#eef4ff;--acc:#6a3dc2;--ok:#1a7f37;--err:#c62828;--warn:#9a6700;--code:#f3f3f5;--add:#e6ffec;--del:#ffebe9}
@media (prefers-color-scheme:dark){:root{--bg:#141417;--fg:#e6e6ea;--dim:#9a9aa6;--line:#33333a;--side:#1b1b20;--user:#1d2433;--acc:#b392f0;--ok:#56d364;--err:#ff7b72;--warn:#e3b341;--code:#202026;--add:#12301b;--del:#3a1618}}
*{box-sizing:border-box}
html,body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
a{color:var(--acc)}
code,pre,.mono{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:12.5px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.3em 0;background:var(--code);padding:.5em .7em;border-radius:4px}
input.fr{position:absolute;opacity:0;pointer-events:none}
.layout{display:grid;grid-template-columns:minmax(260px,380px) 1fr;min-height:100vh}
nav.side{position:sticky;top:0;height:100vh;overflow:auto;background:var(--side);border-right:1px solid var(--line);padding:10px 8px;font-size:12.5px}
.filters{display:flex;flex-wrap:wrap;gap:4px;margin:6px 0}
.filters label{border:1px solid var(--line);border-radius:4px;padding:1px 7px;cursor:pointer;color:var(--dim)}
#f-default:checked~.layout label[for=f-default],#f-notools:checked~.layout label[for=f-notools],#f-user:checked~.layout label[for=f-user],#f-labeled:checked~.layout label[for=f-labeled],#f-all:checked~.layout label[for=f-all]{background:var(--acc);color:var(--bg);border-color:var(--acc)}
.fr:focus-visible~.layout .filters{outline:2px solid var(--acc)}
.search{display:none;width:100%;padding:4px 6px;border:1px solid var(--line);border-radius:4px;background:var(--bg);color:var(--fg)}
.js .search{display:block}
.status{color:var(--dim);margin:4px 0}
ol.tree{list-style:none;margin:0;padding:0}
ol.tree li{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
ol.tree a{color:inherit;text-decoration:none;display:block;overflow:hidden;text-overflow:ellipsis;padding:0 2px;border-radius:3px}
ol.tree a:hover{background:var(--line)}
ol.tree .i1>a{padding-left:16px}ol.tree .i2>a{padding-left:28px}ol.tree .i3>a{padding-left:40px}ol.tree .i4>a{padding-left:52px}ol.tree .i5>a{padding-left:64px}ol.tree .i6>a{padding-left:76px}ol.tree .i7>a{padding-left:88px}ol.tree .i8>a{padding-left:100px}ol.tree .i9>a{padding-left:112px}ol.tree .i10>a{padding-left:124px}ol.tree .i11>a{padding-left:136px}ol.tree .i12>a{padding-left:148px}ol.tree .i13>a{padding-left:160px}ol.tree .i14>a{padding-left:172px}ol.tree .i15>a{padding-left:184px}ol.tree .i16>a{padding-left:196px}
ol.tree li.a>a{font-weight:600}
ol.tree li:not(.a)>a{opacity:.75}
ol.tree li.leaf>a::after{content:" \2190  leaf";color:var(--acc)}
ol.tree li.cur>a{background:var(--user)}
.rl{color:var(--acc)}.ra{color:var(--ok)}.rd{color:var(--dim)}.rw{color:var(--warn)}.re{color:var(--err)}.lb{color:var(--warn)}
li.x:not(.leaf),li.nomatch:not(.leaf){display:none}
#f-default:checked~.layout li.s:not(.leaf),#f-notools:checked~.layout li.s:not(.leaf),#f-notools:checked~.layout li.t:not(.leaf),#f-user:checked~.layout li:not(.u):not(.leaf),#f-labeled:checked~.layout li:not(.l):not(.leaf){display:none}
main{padding:16px 28px 80px;max-width:1000px;min-width:0}
header.top h1{font-size:18px;margin:0 0 8px;color:var(--acc)}
dl.info{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0 0 12px}
dl.info dt{color:var(--dim)}dl.info dd{margin:0}
.tools li{margin:2px 0}
article.e{border-left:3px solid transparent;padding:6px 10px;margin:10px 0;border-radius:4px;scroll-margin-top:12px}
article.e:target{outline:2px solid var(--acc)}
article.k-user{background:var(--user);border-left-color:var(--acc)}
article.k-assistant{border-left-color:var(--ok)}
article.k-tool{border-left-color:var(--line);margin-left:18px}
article.k-tool.err{border-left-color:var(--err)}
article.k-meta{color:var(--dim);padding:2px 10px;margin:4px 0}
article.k-summary{border-left-color:var(--warn);background:var(--code)}
.eh{display:flex;gap:10px;align-items:baseline;font-size:12px;color:var(--dim)}
.eh .who{font-weight:600;color:var(--fg)}
.eh a{color:var(--dim);text-decoration:none}
.eh .label{color:var(--warn);font-weight:600}
.err .who,.errtext{color:var(--err)}
.badge{font-size:11px;border:1px solid currentColor;border-radius:3px;padding:0 4px}
.thinking{color:var(--dim);font-style:italic}
.call{margin:6px 0;padding:4px 8px;border:1px solid var(--line);border-radius:4px}
.call .tn{font-weight:600}
.diff{padding:0;overflow:hidden}
.diff div{white-space:pre-wrap;padding:0 .7em}
.diff .add{background:var(--add)}.diff .del{background:var(--del)}
.ln{display:inline-block;min-width:3.5em;color:var(--dim);user-select:none;text-align:right;padding-right:1em}
details.fold>summary{cursor:pointer;color:var(--acc);font-size:12px}
.bh{margin:36px 0 6px;padding:6px 10px;border-top:2px dashed var(--line);color:var(--dim);font-size:12.5px}
.forks{font-size:12px;color:var(--dim);margin:2px 0 2px 10px}
.forks a{margin-right:8px}
.badlink{text-decoration:underline dotted}
.img{color:var(--dim)}
img.att{max-width:100%;max-height:480px;border:1px solid var(--line)}
.md p{margin:.35em 0}.md table{border-collapse:collapse}.md td,.md th{border:1px solid var(--line);padding:2px 6px}
.viewbar{display:none;gap:8px;font-size:12px;color:var(--dim);margin:8px 0}
.js .viewbar{display:flex}
.js main.pathview article.e:not(.show),.js main.pathview .bh,.js main.pathview .unr{display:none}
@media print{nav.side,.viewbar,.forks,input.fr{display:none!important}.layout{display:block}main{max-width:none;padding:0}article.e{break-inside:avoid-page}.js main.pathview article.e:not(.show){display:block}pre{white-space:pre-wrap}a{color:inherit}}
"#;

/// The script: it only enhances (search, showing one path at a time,
/// opening folds for printing). It sets `data-page="ok"` on the root
/// element when it has run, which the browser test reads.
pub(crate) const JS: &str = r#"
(function(){
'use strict';
var d=document,b=d.body,main=d.querySelector('main');
b.classList.add('js');
var arts=main.querySelectorAll('article.e'),byId={},firstKid={};
for(var i=0;i<arts.length;i++){var a=arts[i];byId[a.id]=a;var p=a.getAttribute('data-p');if(p&&!(p in firstKid))firstKid[p]=a.id;}
var rows=d.querySelectorAll('ol.tree li'),rowOf={};
for(var j=0;j<rows.length;j++){var l=rows[j].querySelector('a');if(l)rowOf[l.getAttribute('href').slice(1)]=rows[j];}
function show(id){
  if(!byId[id])return false;
  var on={},x=id,n=0;
  while(x&&byId[x]&&!on[x]&&n<1e7){on[x]=1;x=byId[x].getAttribute('data-p');n++;}
  x=firstKid[id];
  while(x&&!on[x]&&n<2e7){on[x]=1;x=firstKid[x];n++;}
  for(var k=0;k<arts.length;k++){arts[k].classList.toggle('show',!!on[arts[k].id]);}
  for(var r in rowOf){rowOf[r].classList.toggle('cur',!!on[r]);}
  main.classList.add('pathview');
  var all=d.getElementById('showall');if(all)all.checked=false;
  return true;
}
var leaf=main.getAttribute('data-leaf');
function fromHash(){var h=decodeURIComponent(location.hash.slice(1));if(!(h&&show(h))&&leaf)show(leaf);var t=h&&d.getElementById(h);if(t)t.scrollIntoView();}
window.addEventListener('hashchange',fromHash);
if(leaf||location.hash)fromHash();
var all=d.getElementById('showall');
if(all)all.addEventListener('change',function(){main.classList.toggle('pathview',!all.checked);});
var q=d.getElementById('q'),st=d.getElementById('status');
function count(){var v=0;for(var k=0;k<rows.length;k++){if(rows[k].offsetParent!==null)v++;}if(st)st.textContent=v+' / '+rows.length+' entries';}
if(q)q.addEventListener('input',function(){
  var t=q.value.toLowerCase().split(/\s+/).filter(Boolean);
  for(var k=0;k<rows.length;k++){var s=rows[k].textContent.toLowerCase();rows[k].classList.toggle('nomatch',!t.every(function(w){return s.indexOf(w)>=0;}));}
  count();
});
var fr=d.querySelectorAll('input.fr');for(var k=0;k<fr.length;k++)fr[k].addEventListener('change',count);
count();
window.addEventListener('beforeprint',function(){var ds=d.querySelectorAll('details');for(var k=0;k<ds.length;k++)ds[k].open=true;main.classList.remove('pathview');});
d.documentElement.setAttribute('data-page','ok');
})();
"#;
