// Koredyne Schedule: starts GraphiQL on the page served by graph/graphiql.
// The page carries its settings on #graphiql (data-endpoint,
// data-storage-prefix); ?query=, ?variables= and ?operationName= open with
// that operation in the editor (nothing runs until the play button is
// pressed). Headers are kept in local storage only, never in the URL: they
// hold tokens.
(function () {
  'use strict';
  var root = document.getElementById('graphiql');
  var endpoint = root.getAttribute('data-endpoint');
  var url = endpoint;
  var subscriptionUrl = endpoint;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(endpoint)) {
    url = location.protocol + '//' + location.host + endpoint;
    subscriptionUrl = (location.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + location.host + endpoint;
  } else {
    subscriptionUrl = endpoint.replace(/^http/i, 'ws');
  }
  var prefix = root.getAttribute('data-storage-prefix') || '';
  var storage = {
    getItem: function (k) { return localStorage.getItem(prefix + k); },
    setItem: function (k, v) { localStorage.setItem(prefix + k, v); },
    removeItem: function (k) { localStorage.removeItem(prefix + k); },
    clear: function () {
      for (var i = localStorage.length - 1; i >= 0; i--) {
        var k = localStorage.key(i);
        if (k !== null && k.indexOf(prefix) === 0) localStorage.removeItem(k);
      }
    },
    get length() {
      var n = 0;
      for (var i = 0; i < localStorage.length; i++) {
        if (localStorage.key(i).indexOf(prefix) === 0) n++;
      }
      return n;
    }
  };
  var params = new URLSearchParams(location.search);
  var props = {
    fetcher: GraphiQL.createFetcher({ url: url, subscriptionUrl: subscriptionUrl }),
    isHeadersEditorEnabled: true,
    shouldPersistHeaders: true,
    storage: storage,
    inputValueDeprecation: true
  };
  ['query', 'variables', 'operationName'].forEach(function (name) {
    if (params.has(name)) props[name] = params.get(name);
  });
  ReactDOM.render(React.createElement(GraphiQL, props), root);
})();
