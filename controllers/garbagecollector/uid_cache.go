// Port of kubernetes pkg/controller/garbagecollector/uid_cache.go (v1.37.2).

package garbagecollector

import (
	"k8s.io/utils/lru"
)

// ReferenceCache is an LRU cache for uid.
type ReferenceCache struct {
	cache *lru.Cache
}

// NewReferenceCache returns a ReferenceCache.
func NewReferenceCache(maxCacheEntries int) *ReferenceCache {
	return &ReferenceCache{
		cache: lru.New(maxCacheEntries),
	}
}

// Add adds a uid to the cache.
func (c *ReferenceCache) Add(reference objectReference) {
	c.cache.Add(reference, nil)
}

// Has returns if a uid is in the cache.
func (c *ReferenceCache) Has(reference objectReference) bool {
	_, found := c.cache.Get(reference)
	return found
}
